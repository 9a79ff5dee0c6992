import { ROLES } from '@platform/identity';
import type * as GraphQL from './graphql-types.generated';

/**
 * The statuses and roles of users and posts, defined once: the GraphQL enums (libs/graphql-schema's SDL), the
 * event snapshots, content's models and REST checks and the JSON Schemas of libs/api-docs are built
 * from these lists. Each list is the values a write may set, then the retired ones: values of an
 * earlier variant of the interface that the GraphQL schema keeps, deprecated, and no write sets
 * (docs/content.md, "GraphQL schema choices").
 */
export const SETTABLE_USER_STATUSES = ['ACTIVE', 'INACTIVE', 'PENDING', 'SUSPENDED'] as const;
export const RETIRED_USER_STATUSES = ['DELETED'] as const;
export const USER_STATUSES = [...SETTABLE_USER_STATUSES, ...RETIRED_USER_STATUSES] as const;
export type UserStatus = (typeof USER_STATUSES)[number];

export const SETTABLE_POST_STATUSES = ['DRAFT', 'PUBLISHED', 'ARCHIVED'] as const;
export const RETIRED_POST_STATUSES = ['DELETED'] as const;
export const POST_STATUSES = [...SETTABLE_POST_STATUSES, ...RETIRED_POST_STATUSES] as const;
export type PostStatus = (typeof POST_STATUSES)[number];

/** A user's role as GraphQL and the snapshots show it: the account roles (libs/identity), then the retired GUEST. */
export const RETIRED_ROLES = ['GUEST'] as const;
export const USER_ROLES = [...ROLES, ...RETIRED_ROLES] as const;
export type UserRole = (typeof USER_ROLES)[number];

/**
 * Each role's rank, from USER_ROLES' order (the most privileged first): ADMIN 3 > MODERATOR 2 > USER 1 > GUEST 0,
 * what `@auth(requires:)` and the visibility rules compare. A Map: roles read from tokens and events are looked up
 * by name, and a plain object would know `constructor`.
 */
export const ROLE_RANKS: ReadonlyMap<string, number> = new Map(
  USER_ROLES.map((role, index) => [role, USER_ROLES.length - 1 - index]),
);

// The SDL's enums are written from these lists (libs/graphql-schema sdl.ts) and the generated types from the SDL
// (graphql-types.generated.ts): the compiler holds the two to the same values.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const _sameLists: [
  Same<UserStatus, GraphQL.UserStatus>,
  Same<PostStatus, GraphQL.PostStatus>,
  Same<UserRole, GraphQL.Role>,
] = [true, true, true];
