import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import { isRole, type Role } from './closed-sets';

/**
 * The gateway authenticates every request once, then tells the services who the caller is in this
 * header: a short-lived HS256 JWT keyed with INTERNAL_SECRET. The gateway strips any copy a client
 * sends, so a client cannot forge it; services reject requests that lack a valid one.
 */
export const IDENTITY_HEADER = 'x-platform-identity';

export type AuthMethod = 'anonymous' | 'bearer_jwt' | 'dpop_jwt' | 'api_key' | 'internal';

export interface Identity {
  /** Account id; absent for anonymous callers. */
  sub?: string;
  roles: Role[];
  /** Space-separated OAuth scopes the caller holds (empty for anonymous). */
  scope: string;
  method: AuthMethod;
  clientId?: string;
  /** Speech plan of the account, when known. */
  plan?: string;
  /**
   * The client's address as the gateway resolved it (its socket peer, or X-Forwarded-For from a
   * trusted proxy only): what services limit anonymous callers and sign-in attempts by. Services
   * never read X-Forwarded-For themselves; anyone can send that header.
   */
  clientAddress?: string;
}

const ISSUER = 'platform-gateway';
const AUDIENCE = 'platform-internal';
const LIFETIME_SECONDS = 60;

export class IdentityError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'IdentityError';
  }
}

function key(secret: string): Uint8Array {
  return new TextEncoder().encode(secret);
}

export async function signIdentity(identity: Identity, secret: string): Promise<string> {
  const jwt = new SignJWT({
    roles: identity.roles,
    scope: identity.scope,
    method: identity.method,
    ...(identity.clientId ? { client_id: identity.clientId } : {}),
    ...(identity.plan ? { plan: identity.plan } : {}),
    ...(identity.clientAddress ? { addr: identity.clientAddress } : {}),
  })
    .setProtectedHeader({ alg: 'HS256', typ: 'platform-identity+jwt' })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setIssuedAt()
    .setExpirationTime(`${LIFETIME_SECONDS}s`);
  if (identity.sub) jwt.setSubject(identity.sub);
  return jwt.sign(key(secret));
}

const METHODS: ReadonlySet<string> = new Set(['anonymous', 'bearer_jwt', 'dpop_jwt', 'api_key', 'internal']);

export async function verifyIdentity(token: string | undefined, secret: string): Promise<Identity> {
  if (!token) throw new IdentityError('identity header missing');
  try {
    const { payload } = await jwtVerify(token, key(secret), {
      issuer: ISSUER,
      audience: AUDIENCE,
      algorithms: ['HS256'],
      typ: 'platform-identity+jwt',
      maxTokenAge: `${LIFETIME_SECONDS + 5}s`,
    });
    const roles = Array.isArray(payload.roles) ? payload.roles.filter(isRole) : [];
    const method =
      typeof payload.method === 'string' && METHODS.has(payload.method) ? (payload.method as AuthMethod) : undefined;
    if (!method) throw new IdentityError('identity method missing');
    return {
      ...(payload.sub ? { sub: payload.sub } : {}),
      roles,
      scope: typeof payload.scope === 'string' ? payload.scope : '',
      method,
      ...(typeof payload.client_id === 'string' ? { clientId: payload.client_id } : {}),
      ...(typeof payload.plan === 'string' ? { plan: payload.plan } : {}),
      ...(typeof payload.addr === 'string' ? { clientAddress: payload.addr } : {}),
    };
  } catch (err) {
    if (err instanceof IdentityError) throw err;
    if (err instanceof joseErrors.JOSEError) throw new IdentityError(`identity header rejected: ${err.code}`);
    throw err;
  }
}
