import { Schema, type Connection, type Model } from 'mongoose';

/** Threaded comments: `parent` is the comment replied to; replies are the comments whose parent it is. */
export interface CommentDoc {
  _id: number;
  content: string;
  author: string;
  post: number;
  parent: number | null;
  createdAt: Date;
  updatedAt: Date | null;
  /** Revision: 1 at creation, incremented by every write in the write's transaction (outbox order). */
  rev: number;
}

const schema = new Schema<CommentDoc>(
  {
    _id: { type: Number, required: true },
    content: { type: String, required: true },
    author: { type: String, required: true },
    post: { type: Number, required: true },
    parent: { type: Number, default: null },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, default: null },
    rev: { type: Number, required: true },
  },
  { versionKey: false, collection: 'comments' },
);
schema.index({ post: 1, createdAt: 1, _id: 1 });
schema.index({ parent: 1, createdAt: 1, _id: 1 });
schema.index({ author: 1, createdAt: 1, _id: 1 });
// The posts a user commented on, read without a document (comments/comment-reads.ts, visibility).
schema.index({ author: 1, post: 1 });
// Search walks comments newest first.
schema.index({ createdAt: 1, _id: 1 });

export type CommentModel = Model<CommentDoc>;
export function commentModel(connection: Connection): CommentModel {
  return connection.models.Comment ?? connection.model<CommentDoc>('Comment', schema);
}
