import {
  adminAccountPatch,
  clientPatch,
  clientRegistration,
  initialAccessTokenRequest,
  jsonSchemaOf,
} from '@platform/contracts';
import type { JsonObject } from '../speech/json-helpers';

/**
 * The administration API's request bodies, written from the auth contract's zod schemas that check them
 * (libs/contracts/src/auth). The patches' refinement (at least one field) is what `minProperties: 1` says.
 */
export const clientRegistrationSchema = jsonSchemaOf(clientRegistration.strict(), 'input') as JsonObject & {
  properties: JsonObject;
};

export const adminBodySchemas: JsonObject = {
  ClientRegistration: clientRegistrationSchema,
  ClientPatch: { ...(jsonSchemaOf(clientPatch, 'input') as JsonObject), minProperties: 1 },
  AccountPatch: { ...(jsonSchemaOf(adminAccountPatch, 'input') as JsonObject), minProperties: 1 },
  // expires_in in seconds (one day by default, 30 days at most); max_uses left out: any number until it expires.
  InitialAccessTokenRequest: jsonSchemaOf(initialAccessTokenRequest, 'input') as JsonObject,
};
