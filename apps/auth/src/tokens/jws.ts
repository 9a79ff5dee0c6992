import { sign, type KeyObject } from 'node:crypto';

/**
 * Compact JWS, ES256, signed with Node's asynchronous `crypto.sign`: the ECDSA work runs on the
 * libuv thread pool instead of the event loop (jose's SignJWT signs synchronously), which was the
 * largest single cost of a /token request. The output is an ordinary JWS (ieee-p1363 signature, as
 * RFC 7518 §3.4 requires); verifiers (jose, openid-client, libs/oauth-resource) read it unchanged.
 */
export function signEs256(
  header: Record<string, unknown>,
  payload: Record<string, unknown>,
  key: KeyObject,
): Promise<string> {
  const input = `${Buffer.from(JSON.stringify(header)).toString('base64url')}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}`;
  return new Promise((resolve, reject) => {
    sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' }, (err, signature) => {
      if (err) reject(err);
      else resolve(`${input}.${signature.toString('base64url')}`);
    });
  });
}
