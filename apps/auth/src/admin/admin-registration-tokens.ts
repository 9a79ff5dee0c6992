import { initialAccessTokenRequest } from '@platform/contracts';
import type { Deps } from '../deps';
import {
  initialAccessTokenModel,
  mintInitialAccessToken,
  revokeInitialAccessToken,
  type MintedInitialAccessToken,
} from '../registration/initial-access-tokens';
import type { AuditActor } from './admin-audit';
import { invalidInput, notFound } from './admin-errors';

/** `POST /admin/registration-tokens`, `registration-tokens:create`: an initial access token for `POST /register` (RFC 7591 §3), shown once. */
export async function createInitialAccessToken(
  deps: Pick<Deps, 'clients'>,
  raw: unknown,
  actor: AuditActor,
): Promise<MintedInitialAccessToken> {
  const parsed = initialAccessTokenRequest.safeParse(raw ?? {});
  if (!parsed.success) throw invalidInput(parsed.error);
  return mintInitialAccessToken(initialAccessTokenModel(deps.clients.db), parsed.data, actor);
}

/** `DELETE /admin/registration-tokens/:id`: the token registers nothing more (clients it registered stay). */
export async function deleteInitialAccessToken(deps: Pick<Deps, 'clients'>, id: string): Promise<void> {
  if (!(await revokeInitialAccessToken(initialAccessTokenModel(deps.clients.db), id)))
    throw notFound('initial access token');
}
