import { SETTABLE_POST_STATUSES, SETTABLE_USER_STATUSES } from '@platform/events';
import { schemaRef, type JsonObject } from '../speech/json-helpers';

/** The email check of content's input readers (apps/content/src/http/validate.ts `isEmail`), which is narrower than RFC 5321. */
const EMAIL = { type: 'string', maxLength: 320, pattern: '^[^\\s@]{1,64}@[^\\s@]{1,255}\\.[^\\s@]{1,63}$' };
const isoTime = { type: 'string', format: 'date-time' };
const nullableIsoTime = { type: ['string', 'null'], format: 'date-time' };
const taxon: JsonObject = {
  type: 'object',
  required: ['slug', 'name'],
  properties: { slug: { type: 'string' }, name: { type: 'string' } },
  additionalProperties: false,
};

/** A category or tag as a client names it: a name or slug, or an object holding one (names become slugs). */
const taxonInput: JsonObject = {
  oneOf: [
    { type: 'string', minLength: 1, maxLength: 50 },
    { type: 'object', required: ['slug'], properties: { slug: { type: 'string', minLength: 1, maxLength: 50 } } },
    { type: 'object', required: ['name'], properties: { name: { type: 'string', minLength: 1, maxLength: 50 } } },
  ],
};

const postWritable: JsonObject = {
  title: { type: 'string', minLength: 1, maxLength: 255 },
  content: { type: 'string', minLength: 1, maxLength: 100_000 },
  published: { type: 'boolean', description: 'Left out: false on create and replace, unchanged on merge.' },
  category: {
    anyOf: [taxonInput, { type: 'null' }],
    description: 'Unknown categories are created with the given name.',
  },
  tags: {
    type: 'array',
    maxItems: 20,
    items: taxonInput,
    description: 'Unknown tags are created with the given names.',
  },
};

const pageMeta: JsonObject = {
  type: 'object',
  required: ['total', 'page', 'limit', 'pages'],
  properties: {
    total: { type: 'integer', minimum: 0 },
    page: { type: 'integer', minimum: 1 },
    limit: { type: 'integer', minimum: 1, maximum: 100 },
    pages: { type: 'integer', minimum: 0, description: 'ceil(total / limit)' },
  },
  additionalProperties: false,
};

const page = (item: string): JsonObject => ({
  type: 'object',
  required: ['data', 'meta'],
  properties: { data: { type: 'array', items: schemaRef(item) }, meta: schemaRef('PageMeta') },
  additionalProperties: false,
});

/** The resources and bodies of the content REST API (apps/content/src/posts, users; docs/content.md). */
export const contentSchemas: JsonObject = {
  Post: {
    type: 'object',
    required: [
      'id',
      'title',
      'slug',
      'content',
      'excerpt',
      'published',
      'status',
      'createdAt',
      'updatedAt',
      'publishedAt',
      'viewCount',
      'author',
      'author_name',
      'category',
      'tags',
    ],
    properties: {
      id: { type: 'integer', minimum: 1 },
      title: { type: 'string' },
      slug: { type: 'string', description: 'From the title when the post was created; kept when the title changes.' },
      content: { type: 'string' },
      excerpt: { type: ['string', 'null'] },
      published: { type: 'boolean', description: 'true exactly when `status` is PUBLISHED.' },
      status: { type: 'string', enum: [...SETTABLE_POST_STATUSES] },
      createdAt: isoTime,
      updatedAt: nullableIsoTime,
      publishedAt: { ...nullableIsoTime, description: 'Set on first publication, never cleared.' },
      viewCount: { type: 'integer', minimum: 0, description: 'REST detail reads.' },
      author: {
        anyOf: [
          {
            type: 'object',
            required: ['id', 'name'],
            properties: { id: { type: 'string' }, name: { type: 'string' } },
            additionalProperties: false,
          },
          { type: 'null' },
        ],
      },
      author_name: { type: ['string', 'null'] },
      category: { anyOf: [taxon, { type: 'null' }] },
      tags: { type: 'array', items: taxon },
    },
    additionalProperties: false,
  },
  PostWrite: {
    type: 'object',
    description:
      'Create (POST) or replace (PUT). Read-only properties of a Post sent back are ignored; any other property is a 400.',
    required: ['title', 'content'],
    properties: postWritable,
    example: { title: 'Hello World!', content: 'First post', published: true, category: 'News', tags: ['typescript'] },
  },
  PostPatch: {
    type: 'object',
    description: 'Merge (PATCH): only the properties given change.',
    properties: postWritable,
    example: { published: false },
  },
  PostPage: page('Post'),
  User: {
    type: 'object',
    description: '`email` is present only for the user themself and for admins.',
    required: ['id', 'name', 'avatar', 'status', 'roles', 'createdAt', 'updatedAt'],
    properties: {
      id: { type: 'string', description: 'The account id at the authorization server.' },
      name: { type: 'string' },
      email: {
        type: 'string',
        description: 'As the account holds it (accounts made at the authorization server were checked there).',
      },
      avatar: { type: ['string', 'null'] },
      status: { type: 'string', enum: [...SETTABLE_USER_STATUSES] },
      roles: {
        type: 'array',
        minItems: 1,
        items: { type: 'string', enum: ['ROLE_ADMIN', 'ROLE_MODERATOR', 'ROLE_USER'] },
      },
      createdAt: isoTime,
      updatedAt: nullableIsoTime,
    },
    additionalProperties: false,
  },
  UserPut: {
    type: 'object',
    description:
      'Replaces the profile. `avatar` left out becomes null; `email`, `status` and `roles` left out stay; `status` and `roles` are for admins only (403 otherwise).',
    required: ['name'],
    properties: {
      name: { type: 'string', minLength: 1, maxLength: 100 },
      email: EMAIL,
      avatar: {
        type: ['string', 'null'],
        format: 'uri',
        maxLength: 2048,
        description: 'An http(s) URL; "" or null clears it.',
      },
      status: { type: 'string', enum: [...SETTABLE_USER_STATUSES] },
      roles: {
        type: 'array',
        minItems: 1,
        maxItems: 3,
        items: { type: 'string', enum: ['ROLE_ADMIN', 'ROLE_MODERATOR', 'ROLE_USER'] },
      },
    },
    example: { name: 'Ada L.' },
  },
  UserPage: page('User'),
  PageMeta: pageMeta,
  Registration: {
    type: 'object',
    required: ['name', 'email', 'password'],
    properties: {
      name: { type: 'string', minLength: 1, maxLength: 100 },
      email: { ...EMAIL, description: 'Compared without regard to letter case; one account per email.' },
      password: { type: 'string', minLength: 8, maxLength: 128 },
    },
    additionalProperties: false,
    example: { name: 'Ada', email: 'ada@example.org', password: 'correct horse' },
  },
  Registered: {
    type: 'object',
    required: ['message', 'user'],
    properties: { message: { type: 'string', const: 'User registered successfully' }, user: schemaRef('User') },
    additionalProperties: false,
  },
  Login: {
    type: 'object',
    required: ['email', 'password'],
    properties: {
      email: { type: 'string', maxLength: 320 },
      password: { type: 'string', minLength: 1, maxLength: 128 },
    },
    additionalProperties: false,
    example: { email: 'ada@example.org', password: 'correct horse' },
  },
  Refresh: {
    type: 'object',
    required: ['refresh_token'],
    properties: { refresh_token: { type: 'string', minLength: 1, maxLength: 4096 } },
    additionalProperties: false,
  },
  Tokens: {
    type: 'object',
    description:
      'An access token for this API (and the speech API) and a refresh token that `POST /api/v1/auth/refresh` rotates.',
    required: ['token', 'refresh_token', 'token_type', 'expires_in', 'refresh_expires_in', 'user'],
    properties: {
      token: { type: 'string', description: 'A JWT access token (RFC 9068).' },
      refresh_token: { type: 'string' },
      token_type: { type: 'string', const: 'Bearer' },
      expires_in: { type: 'integer', minimum: 1, description: 'Seconds.' },
      refresh_expires_in: { type: 'integer', minimum: 1, description: 'Seconds.' },
      user: schemaRef('User'),
    },
    additionalProperties: false,
  },
};
