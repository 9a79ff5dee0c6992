import type { IncomingMessage } from 'node:http';
import type { KeyObject } from 'node:crypto';
import type { ClientDoc } from '../clients/client-model';
import type { Deps } from '../deps';
import { signEs256 } from '../tokens/jws';

/** RFC 9701 §4: the media type a client asks for (Accept) and gets (Content-Type), and the JWT's `typ`. */
export const INTROSPECTION_JWT_MEDIA_TYPE = 'application/token-introspection+jwt';
const INTROSPECTION_JWT_TYPE = 'token-introspection+jwt';

/**
 * Whether the client asked for the JWT answer. RFC 9701 §4 makes the Accept header the switch (a
 * registered `introspection_signed_response_alg` only says how to sign it); any other Accept, or none,
 * gets the plain RFC 7662 JSON.
 */
export function wantsIntrospectionJwt(req: IncomingMessage): boolean {
  const accept = req.headers.accept;
  if (typeof accept !== 'string') return false;
  return accept.split(',').some((range) => {
    const [type, ...params] = range.split(';').map((part) => part.trim().toLowerCase());
    // `q=0` means "not acceptable" (RFC 9110 §12.4.2).
    return type === INTROSPECTION_JWT_MEDIA_TYPE && !params.some((p) => /^q=0(\.0{0,3})?$/.test(p));
  });
}

/**
 * The introspection answer as a signed JWT (RFC 9701 §5): `iss` this server, `aud` the asking client,
 * `iat`, and the RFC 7662 answer in `token_introspection`. Signed with the server's current key (the
 * one /jwks publishes), so the client verifies it as it verifies ID tokens. The client's registered
 * `introspection_signed_response_alg` can only be ES256 (clients.ts), the keys' one algorithm.
 */
export async function introspectionJwt(
  deps: Pick<Deps, 'config' | 'keys'>,
  client: Pick<ClientDoc, '_id' | 'introspectionSignedResponseAlg'>,
  answer: Record<string, unknown>,
): Promise<string> {
  const { kid, privateKey } = await deps.keys.current();
  return signEs256(
    { alg: client.introspectionSignedResponseAlg ?? 'ES256', typ: INTROSPECTION_JWT_TYPE, kid },
    { iss: deps.config.PUBLIC_URL, aud: client._id, iat: Math.floor(Date.now() / 1000), token_introspection: answer },
    privateKey as KeyObject,
  );
}
