import { Schema, type Connection, type Model } from 'mongoose';
import { entityEventSchemaFields, type EntityEventFields } from './outbox-fields';

export type PostStatus = 'DRAFT' | 'PUBLISHED' | 'ARCHIVED' | 'DELETED';

/**
 * `_id` is the REST integer id. `status` and `published` are kept consistent by the write
 * functions (PUBLISHED ⇔ published). `publishedAtSort` mirrors `publishedAt` with epoch 0 for
 * never-published posts so keyset cursors never compare against null.
 */
export interface PostDoc extends EntityEventFields {
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
}

const schema = new Schema<PostDoc>(
  {
    _id: { type: Number, required: true },
    title: { type: String, required: true },
    titleLower: { type: String, required: true },
    slug: { type: String, required: true },
    content: { type: String, required: true },
    excerpt: { type: String, default: null },
    status: { type: String, required: true },
    published: { type: Boolean, required: true },
    publishedAt: { type: Date, default: null },
    publishedAtSort: { type: Date, required: true },
    viewCount: { type: Number, default: 0 },
    author: { type: String, required: true },
    category: { type: String, default: null },
    tags: { type: [String], default: [] },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, default: null },
    ...entityEventSchemaFields,
  },
  { versionKey: false, collection: 'posts' },
);
schema.index({ slug: 1 }, { unique: true });
// REST list: published, optional category/tag, newest first.
schema.index({ published: 1, createdAt: -1, _id: -1 });
schema.index({ category: 1, published: 1, createdAt: -1 });
schema.index({ tags: 1, published: 1, createdAt: -1 });
// GraphQL filters and orders.
schema.index({ status: 1, createdAt: -1, _id: -1 });
schema.index({ author: 1, createdAt: -1, _id: -1 });
schema.index({ titleLower: 1, _id: 1 });
schema.index({ publishedAtSort: 1, _id: 1 });
schema.index({ viewCount: 1, _id: 1 });

export type PostModel = Model<PostDoc>;
export function postModel(connection: Connection): PostModel {
  return connection.models.Post ?? connection.model<PostDoc>('Post', schema);
}
