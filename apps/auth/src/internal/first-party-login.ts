import { API_KEYS_SCOPE } from '@platform/oauth-resource';
import type { AccountDoc } from '../accounts/account-model';
import type { Deps } from '../deps';
import { consumeRefreshToken, revokedDuringRotation } from '../tokens/refresh-tokens';
import { issueTokenSet } from '../tokens/issue-tokens';

/** The first-party client that content's register/login acts as (docs/architecture.md). */
const FIRST_PARTY_CLIENT = 'platform';
/** The first-party session may create the account's API keys (`speech:keys`): the person signed in to the platform itself. */
const FIRST_PARTY_SCOPES = [
  'content:read',
  'content:write',
  'speech:read',
  'speech:write',
  API_KEYS_SCOPE,
  'offline_access',
];

interface LoginAnswer {
  access_token: string;
  refresh_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_expires_in: number;
  account: { id: string; name: string; email: string; roles: string[] };
}

export async function loginTokens(deps: Deps, account: AccountDoc, familyId?: string): Promise<LoginAnswer> {
  const issued = await issueTokenSet(deps, {
    sub: account._id,
    clientId: FIRST_PARTY_CLIENT,
    scopes: FIRST_PARTY_SCOPES,
    audience: [deps.config.PUBLIC_URL],
    withRefresh: true,
    account,
    ...(familyId ? { familyId } : {}),
  });
  return {
    access_token: issued.response.access_token,
    refresh_token: issued.response.refresh_token!,
    token_type: 'Bearer',
    expires_in: deps.config.ACCESS_TOKEN_TTL,
    refresh_expires_in: deps.config.REFRESH_TOKEN_TTL,
    account: { id: account._id, name: account.name, email: account.email, roles: account.roles },
  };
}

/** Rotates a first-party refresh token; null when it is unknown, expired, revoked or reused. */
export async function refreshLogin(deps: Deps, refreshToken: string): Promise<LoginAnswer | null> {
  const used = await consumeRefreshToken(deps, refreshToken, FIRST_PARTY_CLIENT);
  if (!used.ok) return null;
  const account = await deps.accounts.findById(used.doc.sub).lean<AccountDoc>();
  if (!account || account.status !== 'active') return null;
  const answer = await loginTokens(deps, account, used.doc.familyId);
  return (await revokedDuringRotation(deps, used.doc.familyId)) ? null : answer;
}
