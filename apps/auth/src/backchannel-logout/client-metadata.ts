import type { ClientPatch } from '@platform/contracts';
import type { ClientDoc } from '../clients/client-model';
import { backchannelLogoutUriProblem } from './backchannel-uri';

/**
 * The back-channel logout fields of a registration change (admin API, CLI): `backchannel_logout_uri`
 * (null removes it) and `backchannel_logout_session_required`.
 */
type BackchannelPatch = Pick<ClientPatch, 'backchannel_logout_uri' | 'backchannel_logout_session_required'>;

/** What is wrong with a registration's `backchannel_logout_uri` under this server's settings, prefixed with the field. */
export function backchannelRegistrationProblem(
  input: { backchannel_logout_uri?: string | null | undefined },
  allowPrivate: boolean,
): string | undefined {
  if (input.backchannel_logout_uri == null) return undefined;
  const problem = backchannelLogoutUriProblem(input.backchannel_logout_uri, allowPrivate);
  return problem ? `backchannel_logout_uri: ${problem}` : undefined;
}

/** The stored fields a patch changes. */
export function backchannelUpdate(
  patch: BackchannelPatch,
): Partial<Pick<ClientDoc, 'backchannelLogoutUri' | 'backchannelLogoutSessionRequired'>> {
  return {
    ...(patch.backchannel_logout_uri !== undefined ? { backchannelLogoutUri: patch.backchannel_logout_uri } : {}),
    ...(patch.backchannel_logout_session_required !== undefined
      ? { backchannelLogoutSessionRequired: patch.backchannel_logout_session_required }
      : {}),
  };
}
