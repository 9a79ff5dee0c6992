import { POST_STATUSES, type PostStatus } from '@platform/events';
import { Schema, type Connection, type Model } from 'mongoose';

export type { PostStatus };

/** The fields GraphQL lists posts by (`PostOrderField`). */
export const POST_ORDERS = ['createdAt', 'titleLower', 'publishedAtSort', 'viewCount'] as const;

/**
 * `_id` is the REST integer id. `status` and `published` are kept consistent by the write
 * functions (PUBLISHED ⇔ published). `publishedAtSort` mirrors `publishedAt` with epoch 0 for
 * never-published posts so keyset cursors never compare against null.
 */
export interface PostDoc {
  _id: number;
  title: string;
  titleLower: string;
  slug: string;
  content: string;
  excerpt: string | null;
  status: PostStatus;
  published: boolean;
  publishedAt: Date | null;
  publishedAtSort: Date;
  viewCount: number;
  author: string;
  category: string | null;
  tags: string[];
  createdAt: Date;
  updatedAt: Date | null;
  /** Revision, incremented by every write in the write's transaction (outbox order). */
  rev: number;
  /**
   * Incremented by every comment creation, in its transaction. It makes a comment's insert and a
   * deletion of its post write the same document, so they conflict and one waits for the other:
   * without it, snapshot isolation would let a comment land on a post deleted at the same moment,
   * with no `comment.deleted` ever published for it.
   */
  commentInserts: number;
}

const schema = new Schema<PostDoc>(
  {
    _id: { type: Number, required: true },
    title: { type: String, required: true },
    titleLower: { type: String, required: true },
    slug: { type: String, required: true },
    content: { type: String, required: true },
    excerpt: { type: String, default: null },
    status: { type: String, required: true, enum: POST_STATUSES },
    published: { type: Boolean, required: true },
    publishedAt: { type: Date, default: null },
    publishedAtSort: { type: Date, required: true },
    viewCount: { type: Number, default: 0 },
    author: { type: String, required: true },
    category: { type: String, default: null },
    tags: { type: [String], default: [] },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, default: null },
    rev: { type: Number, required: true },
    commentInserts: { type: Number, default: 0 },
  },
  { versionKey: false, collection: 'posts' },
);
schema.index({ slug: 1 }, { unique: true });
// Every list is a sorted page read in index order, never sorted in memory
// (test/list-indexes.int.test.ts checks every query the service issues).
// REST list: published, optional category/tag, newest first.
schema.index({ published: 1, createdAt: -1, _id: -1 });
schema.index({ category: 1, published: 1, createdAt: -1, _id: -1 });
schema.index({ tags: 1, published: 1, createdAt: -1, _id: -1 });
// GraphQL: each order (with _id, the keyset tie-breaker), alone (moderators see every post) and
// after the equality filters: `status` (visibility of others' posts, the status filter) and
// `author` (the caller's own drafts, the authorId filter, User.posts).
for (const order of POST_ORDERS) {
  schema.index({ [order]: 1, _id: 1 });
  schema.index({ status: 1, [order]: 1, _id: 1 });
  schema.index({ author: 1, [order]: 1, _id: 1 });
}

export type PostModel = Model<PostDoc>;
export function postModel(connection: Connection): PostModel {
  return connection.models.Post ?? connection.model<PostDoc>('Post', schema);
}
