import type { z } from 'zod/v4';
import {
  accountPage,
  auditEntry,
  auditPage,
  clientPage,
  clientSecret,
  deletedClient,
  jsonSchemaOf,
  publicAccount,
  publicClient,
  registeredClient,
  retiredKey,
  rotatedKey,
  signingKey,
  signingKeys,
  unlockedLogins,
} from '@platform/contracts';
import { schemaRef, type JsonObject } from '../speech/json-helpers';

/** A list's schema whose items refer to the item's schema (`#/components/schemas/<item>`) rather than repeat it. */
function listOf(list: z.ZodType, item: string): JsonObject {
  const schema = jsonSchemaOf(list) as JsonObject & { properties: JsonObject };
  return { ...schema, properties: { ...schema.properties, items: { type: 'array', items: schemaRef(item) } } };
}

/** The administration API's answers, written from the auth contract's schemas (libs/contracts/src/auth/admin-responses.ts). */
export const adminSchemas: JsonObject = {
  ...Object.fromEntries(
    Object.entries({
      Client: publicClient,
      RegisteredClient: registeredClient,
      ClientSecret: clientSecret,
      DeletedClient: deletedClient,
      Account: publicAccount,
      Unlocked: unlockedLogins,
      SigningKey: signingKey,
      RotatedKey: rotatedKey,
      RetiredKey: retiredKey,
      AuditEntry: auditEntry,
    }).map(([name, schema]) => [name, jsonSchemaOf(schema) as JsonObject]),
  ),
  ClientPage: listOf(clientPage, 'Client'),
  AccountPage: listOf(accountPage, 'Account'),
  SigningKeys: listOf(signingKeys, 'SigningKey'),
  AuditPage: listOf(auditPage, 'AuditEntry'),
};
