/**
 * Which credential a request carries. Four forms reach the gateway (design notes, "Identity"):
 * `xi-api-key: <key>`, `Authorization: Bearer <api key>`, `Authorization: Bearer <JWT>` and
 * `Authorization: DPoP <JWT>` with a `DPoP` proof. A JWT is three base64url segments whose first
 * decodes to a JSON header with `alg`; API keys never contain dots, so the two cannot be confused.
 */
export type Credential =
  | { kind: 'none' }
  | { kind: 'api_key'; key: string }
  | { kind: 'jwt'; token: string; scheme: 'Bearer' | 'DPoP'; proof?: string }
  | { kind: 'malformed'; reason: string; ambiguous?: boolean };

export interface CredentialHeaders {
  authorization?: string | string[] | undefined;
  'xi-api-key'?: string | string[] | undefined;
  dpop?: string | string[] | undefined;
}

const MAX_CREDENTIAL_LENGTH = 8192;
const JWT_SHAPE = /^[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]+$/;
const TOKEN68 = /^[A-Za-z0-9\-._~+/]+=*$/;

export function looksLikeJwt(token: string): boolean {
  if (token.length > MAX_CREDENTIAL_LENGTH || !JWT_SHAPE.test(token)) return false;
  try {
    const header: unknown = JSON.parse(Buffer.from(token.slice(0, token.indexOf('.')), 'base64url').toString('utf8'));
    return typeof header === 'object' && header !== null && typeof (header as { alg?: unknown }).alg === 'string';
  } catch {
    return false;
  }
}

function single(value: string | string[] | undefined): string | undefined | null {
  if (Array.isArray(value)) return value.length === 1 ? value[0] : null;
  return value;
}

export function readCredential(headers: CredentialHeaders): Credential {
  const apiKey = single(headers['xi-api-key']);
  const authorization = single(headers.authorization);
  const proof = single(headers.dpop);
  if (apiKey === null || authorization === null || proof === null) {
    return { kind: 'malformed', reason: 'a credential header was sent more than once', ambiguous: true };
  }
  if (apiKey !== undefined && authorization !== undefined) {
    return { kind: 'malformed', reason: 'send one credential: xi-api-key or Authorization, not both', ambiguous: true };
  }
  if (apiKey !== undefined) {
    const key = apiKey.trim();
    if (key.length === 0 || key.length > MAX_CREDENTIAL_LENGTH)
      return { kind: 'malformed', reason: 'xi-api-key is empty or too long' };
    return { kind: 'api_key', key };
  }
  if (authorization === undefined) return { kind: 'none' };
  const match = /^([A-Za-z]+) +(\S+)\s*$/.exec(authorization);
  if (!match || match[2]!.length > MAX_CREDENTIAL_LENGTH || !TOKEN68.test(match[2]!)) {
    return { kind: 'malformed', reason: 'Authorization header is malformed' };
  }
  const scheme = match[1]!.toLowerCase();
  const token = match[2]!;
  if (scheme === 'bearer') {
    return looksLikeJwt(token) ? { kind: 'jwt', token, scheme: 'Bearer' } : { kind: 'api_key', key: token };
  }
  if (scheme === 'dpop') {
    if (!looksLikeJwt(token)) return { kind: 'malformed', reason: 'DPoP access token is not a JWT' };
    return proof === undefined ? { kind: 'jwt', token, scheme: 'DPoP' } : { kind: 'jwt', token, scheme: 'DPoP', proof };
  }
  return { kind: 'malformed', reason: `unsupported authorization scheme ${match[1]}` };
}
