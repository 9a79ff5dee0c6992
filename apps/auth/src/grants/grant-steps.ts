import { OAuthError } from '../oauth/oauth-error';
import type { AccountDoc } from '../accounts/account-model';
import type { ClientDoc } from '../clients/client-model';
import type { Deps } from '../deps';
import { audienceFor } from '../oauth/resources';
import { OPENID_SCOPE } from '../oauth/scopes';
import { issueIdToken, type IdTokenInput } from '../oidc/id-token';
import { issueTokenSet, type IssuedTokenSet, type TokenResponse, type TokenSetInput } from '../tokens/issue-tokens';
import type { GrantContext, GrantDescriptor, GrantTokens } from './grant-descriptor';

// The steps several grants share, written once (each grant's file calls the ones it needs).

/** The real signers, bound to the app's dependencies (the token route hands them to every grant). */
export function grantTokens(deps: Deps): GrantTokens {
  return {
    issue: (input) => issueTokenSet(deps, input),
    idToken: (input) => issueIdToken(deps, input),
  };
}

/**
 * Whether the client may use the grant (`unauthorized_client`, RFC 6749 §5.2, otherwise): its
 * registration lists the grant, and a grant for confidential clients only gets one.
 */
export function checkClientMayUse(grant: GrantDescriptor, client: Pick<ClientDoc, 'grantTypes' | 'type'>): void {
  if (!client.grantTypes.some((type) => type === grant.type))
    throw new OAuthError('unauthorized_client', `this client may not use ${grant.type}`);
  if (grant.clients === 'confidential' && client.type !== 'confidential')
    throw new OAuthError('unauthorized_client', `${grant.type} needs a confidential client`);
}

export async function findAccount(deps: Pick<Deps, 'accounts'>, sub: string | undefined): Promise<AccountDoc | null> {
  return sub === undefined ? null : deps.accounts.findById(sub).lean<AccountDoc>();
}

/** The subject's account when there is one: a disabled account gets no new tokens by any grant. */
export async function subjectAccount(
  deps: Pick<Deps, 'accounts'>,
  sub: string | undefined,
): Promise<AccountDoc | null> {
  const account = await findAccount(deps, sub);
  if (account && account.status !== 'active') throw new OAuthError('invalid_grant', 'the account is no longer active');
  return account;
}

/** The subject's account, which must exist and be active (`invalid_grant` otherwise). */
export async function activeAccount(deps: Pick<Deps, 'accounts'>, sub: string | undefined): Promise<AccountDoc> {
  const account = await subjectAccount(deps, sub);
  if (!account) throw new OAuthError('invalid_grant', 'the account is no longer active');
  return account;
}

/**
 * A new grant's audience: the requested resources (RFC 8707 §2, the form's `resource`) the client may use,
 * or its default (oauth/resources.ts).
 */
export function clientAudience(ctx: GrantContext, resources: string[] = []): string[] {
  return audienceFor(ctx.client, resources, ctx.deps.config.PUBLIC_URL);
}

type GrantTokenInput = Omit<TokenSetInput, 'jkt' | 'withRefresh' | 'refreshJkt' | 'familyId'> & {
  /** A refresh token rotation: the family the new refresh token joins and the DPoP key it is bound to. */
  rotates?: { familyId: string; jkt?: string | null | undefined };
};

/**
 * Issues the grant's tokens with its bindings: the access token is bound to the request's DPoP key
 * (`cnf.jkt`, RFC 9449 §6); a refresh token is issued as the descriptor's `issues.refreshToken` says,
 * a new family's bound to the DPoP key for public clients (RFC 9449 §5; confidential clients' are
 * bound to the client), a rotation's to its family's key.
 */
export function issueGrantTokens(ctx: GrantContext, input: GrantTokenInput): Promise<IssuedTokenSet> {
  const { rotates, ...token } = input;
  const policy = ctx.issues.refreshToken;
  const withRefresh =
    policy === 'rotation' || (policy === 'new-family' && ctx.client.grantTypes.includes('refresh_token'));
  return ctx.tokens.issue({
    ...token,
    withRefresh,
    ...(ctx.jkt ? { jkt: ctx.jkt } : {}),
    ...(withRefresh ? refreshBinding(ctx, rotates) : {}),
  });
}

function refreshBinding(
  ctx: GrantContext,
  rotates: GrantTokenInput['rotates'],
): Pick<TokenSetInput, 'familyId' | 'refreshJkt'> {
  if (rotates) return { familyId: rotates.familyId, ...(rotates.jkt ? { refreshJkt: rotates.jkt } : {}) };
  return ctx.client.type === 'public' && ctx.jkt ? { refreshJkt: ctx.jkt } : {};
}

/**
 * Adds the ID token when the grant issues them and `openid` is granted (OpenID Connect Core 1.0
 * §3.1.3.3; on refresh §12.2: same `sub` and `auth_time`, no `nonce`).
 */
export async function withIdToken(
  ctx: GrantContext,
  response: TokenResponse,
  claims: Omit<IdTokenInput, 'accessToken'>,
): Promise<TokenResponse> {
  if (!ctx.issues.idToken || !claims.scopes.includes(OPENID_SCOPE)) return response;
  return { ...response, id_token: await ctx.tokens.idToken({ ...claims, accessToken: response.access_token }) };
}
