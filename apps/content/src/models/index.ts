import type { Connection } from 'mongoose';
import { commentModel, type CommentModel } from './comment-model';
import { counterModel, idSequences, type CounterModel, type IdSequences } from './counters';
import { leaseModel, type LeaseModel } from './lease-model';
import { outboxModel, type OutboxModel } from './outbox-model';
import { postModel, type PostModel } from './post-model';
import { categoryModel, tagModel, type TaxonomyModel } from './taxonomy-models';
import { userModel, type UserModel } from './user-model';

export interface Models {
  users: UserModel;
  posts: PostModel;
  comments: CommentModel;
  categories: TaxonomyModel;
  tags: TaxonomyModel;
  counters: CounterModel;
  /** Post and comment ids, taken from `counters` a block at a time. */
  ids: IdSequences;
  outbox: OutboxModel;
  leases: LeaseModel;
}

export function createModels(connection: Connection): Models {
  const counters = counterModel(connection);
  return {
    users: userModel(connection),
    posts: postModel(connection),
    comments: commentModel(connection),
    categories: categoryModel(connection),
    tags: tagModel(connection),
    counters,
    ids: idSequences(counters),
    outbox: outboxModel(connection),
    leases: leaseModel(connection),
  };
}

/**
 * Builds indexes before the service reports ready. That also creates the collections the write
 * transactions use, so no transaction has to create one (which concurrent ones would conflict on).
 */
export async function syncIndexes(models: Models): Promise<void> {
  await Promise.all([models.users, models.posts, models.comments, models.outbox].map((m) => m.createIndexes()));
}

export type { UserDoc, UserRole, UserStatus } from './user-model';
export type { PostDoc, PostStatus } from './post-model';
export type { CommentDoc } from './comment-model';
export type { OutboxDoc, OutboxEntityType } from './outbox-model';
export { USER_ORDERS } from './user-model';
export { POST_ORDERS } from './post-model';
export { ID_BLOCK_SIZE } from './counters';
export { insertBuilt } from './insert-built';
