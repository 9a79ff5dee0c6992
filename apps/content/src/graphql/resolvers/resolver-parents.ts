import type { CommentDoc, PostDoc, UserDoc } from '../../models';
import type { Connection } from '../connections';
import type { LazyConnection } from './type-resolvers';

/**
 * The parents the generated resolver types (resolver-types.generated.ts, `mappers` in scripts/graphql-types.mjs)
 * give each connection: what the resolvers above return, a page whose `totalCount` may be counted on demand, or
 * (nested comment lists) one whose page is read only if selected. User, Post and Comment map to their documents.
 */
export type UserConnectionParent = Connection<UserDoc>;
export type PostConnectionParent = Connection<PostDoc>;
export type CommentConnectionParent = Connection<CommentDoc> | LazyConnection<CommentDoc>;
