import type { KeyObject } from 'node:crypto';
import type { Deps } from '../deps';
import { sha256 } from '../crypto/secrets';
import { signEs256 } from '../tokens/jws';

const BACKCHANNEL_LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';

/** A logout token is good for two minutes from each delivery attempt: long enough for clock skew, short for a replay. */
const LOGOUT_TOKEN_TTL = 120;

/**
 * The `sid` claim of a sign-in session (OpenID Connect Back-Channel Logout 1.0 §3): derived from the
 * session's id hash, so it names the session to RPs without being a key of anything in Redis.
 */
export function sessionClaim(sessionId: string): string {
  return sha256(`oidc-sid:${sessionId}`);
}

interface LogoutTokenInput {
  clientId: string;
  sub: string;
  sid?: string;
  /** Kept across delivery attempts, so an RP that got an earlier attempt can tell it is the same logout. */
  jti: string;
}

/**
 * A Logout Token (§2.4): a JWT with `typ: logout+jwt` (§2.4 recommends explicit typing, so it can never
 * pass as an ID token), signed ES256 with the current signing key (verified with `jwks_uri` like ID
 * tokens), with `iss`, `aud` (the client), `iat`, `exp`, `jti`, `sub` and `sid`, the back-channel logout
 * event, and never a `nonce` (§2.4: its presence would let it be mistaken for an ID token).
 */
export async function signLogoutToken(deps: Pick<Deps, 'config' | 'keys'>, input: LogoutTokenInput): Promise<string> {
  const { kid, privateKey } = await deps.keys.current();
  const iat = Math.floor(Date.now() / 1000);
  return signEs256(
    { alg: 'ES256', typ: 'logout+jwt', kid },
    {
      iss: deps.config.PUBLIC_URL,
      aud: input.clientId,
      iat,
      exp: iat + LOGOUT_TOKEN_TTL,
      jti: input.jti,
      sub: input.sub,
      ...(input.sid !== undefined ? { sid: input.sid } : {}),
      events: { [BACKCHANNEL_LOGOUT_EVENT]: {} },
    },
    privateKey as KeyObject,
  );
}
