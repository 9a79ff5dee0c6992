import { GRANT_FORMS, type GrantType } from '@platform/oauth-grants';
import { authorizationCodeGrant } from './authorization-code';
import { clientCredentialsGrant } from './client-credentials';
import { deviceCodeGrant } from './device-code';
import type { GrantDescriptor } from './grant-descriptor';
import { jwtBearerGrant } from './jwt-bearer';
import { refreshTokenGrant } from './refresh-token';
import { tokenExchangeGrant } from './token-exchange';

export type { GrantType };

/**
 * Every grant the token endpoint serves, one descriptor each (grant-descriptor.ts), keyed by its type: the
 * type says there is exactly one per form of libs/oauth-grants (the forms the auth API document
 * describes, which the gateway builds without this app), so a form without a grant does not compile.
 */
const GRANT_OF: { readonly [T in GrantType]: GrantDescriptor<T> } = {
  [authorizationCodeGrant.type]: authorizationCodeGrant,
  [clientCredentialsGrant.type]: clientCredentialsGrant,
  [refreshTokenGrant.type]: refreshTokenGrant,
  [deviceCodeGrant.type]: deviceCodeGrant,
  [jwtBearerGrant.type]: jwtBearerGrant,
  [tokenExchangeGrant.type]: tokenExchangeGrant,
};

/**
 * The grants in their forms' order. /token dispatches through them; client registrations (API and CLI),
 * the metadata documents (`grant_types_supported`) and the development data script
 * (scripts/post-start.mjs) take their grant types from here. A new grant: its form in libs/oauth-grants
 * (the parameters its handler is given parsed), its file here, and a line in `GRANT_OF`.
 */
export const GRANTS: readonly GrantDescriptor<GrantType>[] = GRANT_FORMS.map((form) => GRANT_OF[form.type]);

/** The grant types /token serves, in the forms' order (the metadata's `grant_types_supported`): `GRANTS`' types, one per form. */
export { GRANT_TYPES } from '@platform/oauth-grants';

const byType = new Map<string, GrantDescriptor>(GRANTS.map((grant) => [grant.type, grant]));

/** The grant of a `grant_type` value; undefined for one this server does not serve. */
export function grantFor(type: string): GrantDescriptor | undefined {
  return byType.get(type);
}
