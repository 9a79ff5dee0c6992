import { authorizationCodeGrant } from './authorization-code';
import { clientCredentialsGrant } from './client-credentials';
import { deviceCodeGrant } from './device-code';
import type { GrantDescriptor } from './grant-descriptor';
import { jwtBearerGrant } from './jwt-bearer';
import { refreshTokenGrant } from './refresh-token';
import { tokenExchangeGrant } from './token-exchange';

/**
 * Every grant the token endpoint serves, one descriptor each (grant-descriptor.ts). /token dispatches
 * through it; client registrations (API and CLI), the metadata documents (`grant_types_supported`)
 * and the development data script (scripts/post-start.mjs) take their grant types from it. A new
 * grant: its file, and a line here.
 */
export const GRANTS = [
  authorizationCodeGrant,
  clientCredentialsGrant,
  refreshTokenGrant,
  deviceCodeGrant,
  jwtBearerGrant,
  tokenExchangeGrant,
] as const;

export type GrantType = (typeof GRANTS)[number]['type'];

export const GRANT_TYPES = GRANTS.map((grant) => grant.type) as [GrantType, ...GrantType[]];

const byType = new Map<string, GrantDescriptor>(GRANTS.map((grant) => [grant.type, grant]));

/** The grant of a `grant_type` value; undefined for one this server does not serve. */
export function grantFor(type: string): GrantDescriptor | undefined {
  return byType.get(type);
}
