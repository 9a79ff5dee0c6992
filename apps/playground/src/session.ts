import * as oauth from 'oauth4webapi';
import { friendlyText } from './messages';

/**
 * Sign-in as a public OAuth client: the authorization code flow with PKCE (RFC 7636) and OpenID Connect,
 * through oauth4webapi. The tokens live in sessionStorage: this tab only, gone when it closes; the
 * page's Content-Security-Policy admits no script but its own, which is what keeps them from others.
 */
/** `speech:keys`: the API keys tab creates and revokes the account's keys (docs/speech.md "API keys"). */
const SCOPE = 'openid profile email speech:read speech:write speech:keys content:read content:write offline_access';

const PENDING = 'playground.pending';
const TOKENS = 'playground.tokens';

interface Person {
  sub: string;
  name?: string;
  email?: string;
}

interface Stored {
  accessToken: string;
  refreshToken?: string;
  idToken?: string;
  /** Milliseconds since the epoch. */
  expiresAt: number;
  person: Person;
}

interface Pending {
  verifier: string;
  state: string;
  nonce: string;
}

export interface Session {
  person: Person;
  /** A valid access token, refreshed first when it is about to expire. */
  accessToken(): Promise<string>;
  signOut(): Promise<void>;
}

export interface SignIn {
  /** The session after a completed sign-in or from this tab's storage; null when signed out. */
  resume(): Promise<Session | null>;
  /** Sends the browser to the authorization server's sign-in page. */
  begin(loginHint?: string): Promise<void>;
}

export async function createSignIn(issuerUrl: string, clientId: string): Promise<SignIn> {
  const issuer = new URL(issuerUrl);
  // Plain http only for a local platform (oauth4webapi refuses it otherwise).
  const transport = issuer.protocol === 'http:' ? { [oauth.allowInsecureRequests]: true } : {};
  const as = await oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { algorithm: 'oidc', ...transport }),
  );
  const client: oauth.Client = { client_id: clientId };
  const auth = oauth.None();
  const redirectUri = `${issuerUrl}/`;

  const store = (result: oauth.TokenEndpointResponse, person: Person, previous?: Stored): Stored => {
    const stored: Stored = {
      accessToken: result.access_token,
      refreshToken: result.refresh_token ?? previous?.refreshToken,
      idToken: result.id_token ?? previous?.idToken,
      expiresAt: Date.now() + (result.expires_in ?? 300) * 1000,
      person,
    };
    sessionStorage.setItem(TOKENS, JSON.stringify(stored));
    return stored;
  };

  const sessionOf = (initial: Stored): Session => {
    let current = initial;
    let refreshing: Promise<Stored> | null = null;
    const refresh = async (): Promise<Stored> => {
      if (!current.refreshToken) throw new Error('Your sign-in has expired: sign in again.');
      const response = await oauth.refreshTokenGrantRequest(as, client, auth, current.refreshToken, transport);
      return store(await oauth.processRefreshTokenResponse(as, client, response), current.person, current);
    };
    return {
      person: current.person,
      async accessToken() {
        if (Date.now() < current.expiresAt - 30_000) return current.accessToken;
        refreshing ??= refresh().finally(() => {
          refreshing = null;
        });
        current = await refreshing;
        return current.accessToken;
      },
      async signOut() {
        sessionStorage.removeItem(TOKENS);
        if (current.refreshToken) {
          // Revoking the refresh token (RFC 7009) ends the grant: its access tokens are refused too.
          await oauth.revocationRequest(as, client, auth, current.refreshToken, transport).catch(() => undefined);
        }
        const end = as.end_session_endpoint;
        if (!end) {
          location.assign(redirectUri);
          return;
        }
        const url = new URL(end);
        url.searchParams.set('client_id', clientId);
        url.searchParams.set('post_logout_redirect_uri', redirectUri);
        if (current.idToken) url.searchParams.set('id_token_hint', current.idToken);
        location.assign(url);
      },
    };
  };

  return {
    async begin(loginHint) {
      const pending: Pending = {
        verifier: oauth.generateRandomCodeVerifier(),
        state: oauth.generateRandomState(),
        nonce: oauth.generateRandomNonce(),
      };
      sessionStorage.setItem(PENDING, JSON.stringify(pending));
      const url = new URL(as.authorization_endpoint!);
      const params: Record<string, string> = {
        client_id: clientId,
        redirect_uri: redirectUri,
        response_type: 'code',
        scope: SCOPE,
        state: pending.state,
        nonce: pending.nonce,
        code_challenge: await oauth.calculatePKCECodeChallenge(pending.verifier),
        code_challenge_method: 'S256',
        ...(loginHint ? { login_hint: loginHint } : {}),
      };
      for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
      location.assign(url);
    },

    async resume() {
      const here = new URL(location.href);
      if (here.searchParams.has('state')) {
        const pending = JSON.parse(sessionStorage.getItem(PENDING) ?? 'null') as Pending | null;
        sessionStorage.removeItem(PENDING);
        // The code leaves the address bar (and history) before anything else happens.
        history.replaceState(null, '', here.pathname);
        if (!pending) throw new Error('This sign-in was not started in this tab: sign in again.');
        const params = authorizationResponse(as, client, here, pending.state);
        const response = await oauth.authorizationCodeGrantRequest(
          as,
          client,
          auth,
          params,
          redirectUri,
          pending.verifier,
          transport,
        );
        const result = await oauth.processAuthorizationCodeResponse(as, client, response, {
          expectedNonce: pending.nonce,
          requireIdToken: true,
        });
        const claims = oauth.getValidatedIdTokenClaims(result)!;
        const person: Person = {
          sub: claims.sub,
          ...(typeof claims.name === 'string' ? { name: claims.name } : {}),
          ...(typeof claims.email === 'string' ? { email: claims.email } : {}),
        };
        return sessionOf(store(result, person));
      }
      const saved = JSON.parse(sessionStorage.getItem(TOKENS) ?? 'null') as Stored | null;
      return saved ? sessionOf(saved) : null;
    },
  };
}

/** The authorization server's error answer to a sign-in, worded for people (messages.ts). */
export class SignInRefused extends Error {}

/**
 * The authorization response's parameters; an error response (RFC 6749 §4.1.2.1, such as
 * `access_denied` when the person pressed Deny) is thrown worded for people.
 */
function authorizationResponse(
  as: oauth.AuthorizationServer,
  client: oauth.Client,
  here: URL,
  state: string,
): URLSearchParams {
  try {
    return oauth.validateAuthResponse(as, client, here, state);
  } catch (err) {
    if (err instanceof oauth.AuthorizationResponseError)
      throw new SignInRefused(friendlyText(err.error, 400, `Sign-in failed: ${err.error_description ?? err.error}`));
    throw err;
  }
}

/**
 * The access token this tab's playground session holds, while it is still valid (the GraphQL explorer
 * offers it as its Authorization header); null when signed out or expired.
 */
export function storedAccessToken(now = Date.now()): string | null {
  try {
    const saved = JSON.parse(sessionStorage.getItem(TOKENS) ?? 'null') as Stored | null;
    return saved && now < saved.expiresAt ? saved.accessToken : null;
  } catch {
    return null;
  }
}
