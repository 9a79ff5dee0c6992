import {
  Login,
  PageMeta,
  Post,
  PostPage,
  PostPatch,
  PostWrite,
  Refresh,
  Registered,
  Registration,
  Tokens,
  User,
  UserPage,
  UserPut,
} from '@platform/contracts';
import type { JsonObject } from '../speech/json-helpers';
import { componentSchemas, schemaOf } from '../contract-schemas';

/**
 * The resources and bodies of the content REST API, written from their contracts (libs/contracts, content):
 * what a client sends as `input`, what the API answers as `output`.
 */
export const contentSchemas: JsonObject = componentSchemas({
  Post: schemaOf(Post),
  PostWrite: schemaOf(PostWrite, 'input'),
  PostPatch: schemaOf(PostPatch, 'input'),
  PostPage: schemaOf(PostPage),
  User: schemaOf(User),
  UserPut: schemaOf(UserPut, 'input'),
  UserPage: schemaOf(UserPage),
  PageMeta: schemaOf(PageMeta),
  Registration: schemaOf(Registration, 'input'),
  Registered: schemaOf(Registered),
  Login: schemaOf(Login, 'input'),
  Refresh: schemaOf(Refresh, 'input'),
  Tokens: schemaOf(Tokens),
});
