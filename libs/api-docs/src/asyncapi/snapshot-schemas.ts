import { POST_STATUSES, USER_ROLES, USER_STATUSES } from '@platform/events';
import type { JsonValue } from '../document';

/** JSON Schemas of the event snapshots (libs/events snapshots.ts): the entity in the GraphQL API's field names. */
const nullableString: JsonValue = { type: ['string', 'null'] };
const dateTime: JsonValue = { type: 'string', format: 'date-time' };
const nullableDateTime: JsonValue = { type: ['string', 'null'], format: 'date-time' };

const authorProperties: Record<string, JsonValue> = {
  id: { type: 'string', description: 'GraphQL global id.' },
  localId: { type: 'string', description: 'The account id.' },
  name: { type: 'string' },
  avatar: nullableString,
  status: { enum: [...USER_STATUSES] },
  role: { enum: [...USER_ROLES] },
  createdAt: dateTime,
  updatedAt: nullableDateTime,
};
const postStatus: JsonValue = { enum: [...POST_STATUSES] };

export const snapshotSchemas = {
  UserSnapshot: {
    type: 'object',
    required: [...Object.keys(authorProperties), 'email'],
    properties: { ...authorProperties, email: { type: 'string' } },
  },
  AuthorSnapshot: { type: 'object', required: Object.keys(authorProperties), properties: authorProperties },
  PostSnapshot: {
    type: 'object',
    required: [
      'id',
      'localId',
      'title',
      'slug',
      'content',
      'excerpt',
      'status',
      'published',
      'tags',
      'category',
      'viewCount',
      'createdAt',
      'publishedAt',
      'updatedAt',
      'author',
    ],
    properties: {
      id: { type: 'string' },
      localId: { type: 'integer' },
      title: { type: 'string' },
      slug: { type: 'string' },
      content: { type: 'string' },
      excerpt: nullableString,
      status: postStatus,
      published: { type: 'boolean' },
      tags: { type: 'array', items: { type: 'string' } },
      category: nullableString,
      viewCount: { type: 'integer', minimum: 0 },
      createdAt: dateTime,
      publishedAt: nullableDateTime,
      updatedAt: nullableDateTime,
      author: { $ref: '#/components/schemas/AuthorSnapshot' },
    },
  },
  PostRefSnapshot: {
    type: 'object',
    required: ['id', 'localId', 'title', 'slug', 'status', 'published', 'createdAt'],
    properties: {
      id: { type: 'string' },
      localId: { type: 'integer' },
      title: { type: 'string' },
      slug: { type: 'string' },
      status: postStatus,
      published: { type: 'boolean' },
      createdAt: dateTime,
      authorId: { type: 'string', description: "The post's author's account id (absent in older events)." },
    },
  },
  CommentSnapshot: {
    type: 'object',
    required: ['id', 'localId', 'content', 'parentId', 'createdAt', 'updatedAt', 'author', 'post'],
    properties: {
      id: { type: 'string' },
      localId: { type: 'integer' },
      content: { type: 'string' },
      parentId: {
        type: ['string', 'null'],
        description: 'Global id of the parent comment; null for a top-level comment.',
      },
      createdAt: dateTime,
      updatedAt: nullableDateTime,
      author: { $ref: '#/components/schemas/AuthorSnapshot' },
      post: { $ref: '#/components/schemas/PostRefSnapshot' },
    },
  },
} satisfies Record<string, JsonValue>;
