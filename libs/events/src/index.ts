export * from './topics';
export * from './closed-lists';
export * from './snapshots';
export * from './envelope';
export * from './producer';
/** The content API's GraphQL types, generated from libs/graphql-schema's SDL (scripts/graphql-types.mjs). */
export type * as GraphQLTypes from './graphql-types.generated';
