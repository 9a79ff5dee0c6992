import { SETTABLE_POST_STATUSES } from '@platform/events';
import { z } from 'zod/v4';
import { instant, readOnlyEcho, text, untrimmedText } from './fields';
import { pageNumber, pageOf, pageSize } from './paging';
import { Taxon, taxonInput } from './taxonomy';

/** A post id in a path: a positive integer as digits; anything else names no post (404). */
export const PostId = z.preprocess(
  (value) => (typeof value === 'string' && /^[1-9]\d{0,14}$/.test(value) ? Number(value) : value),
  z.int().min(1),
);

/** `GET /posts`: paging and the category and tag filters (a name or slug each). */
export const PostListQuery = z.strictObject({
  page: pageNumber,
  limit: pageSize,
  category: z.string().optional().meta({ description: 'Only posts in this category (a name or slug).' }),
  tag: z.string().optional().meta({ description: 'Only posts with this tag (a name or slug).' }),
});

const content = untrimmedText(100_000).refine((body) => body.trim().length > 0, {
  error: 'This value should not be blank.',
});
/** The properties of a Post a client reads but cannot write: sent back, they are ignored. */
const postEchoes = {
  id: readOnlyEcho,
  slug: readOnlyEcho,
  createdAt: readOnlyEcho,
  updatedAt: readOnlyEcho,
  publishedAt: readOnlyEcho,
  author: readOnlyEcho,
  author_name: readOnlyEcho,
  viewCount: readOnlyEcho,
  status: readOnlyEcho,
  excerpt: readOnlyEcho,
};
const writable = {
  title: text(255),
  content,
  published: z.boolean().optional().meta({ description: 'Left out: false on create and replace, unchanged on merge.' }),
  category: taxonInput
    .nullable()
    .optional()
    .meta({ description: 'Unknown categories are created with the given name.' }),
  tags: z
    .array(taxonInput)
    .max(20)
    .optional()
    .meta({ description: 'Unknown tags are created with the given names; repeated ones count once.' }),
};

/** Create (POST) or replace (PUT) a post. */
export const PostWrite = z.strictObject({ ...postEchoes, ...writable }).meta({
  description:
    'Create (POST) or replace (PUT). Read-only properties of a Post sent back are ignored; any other property is a 400.',
  example: { title: 'Hello World!', content: 'First post', published: true, category: 'News', tags: ['typescript'] },
});
/** Merge (PATCH): only the properties given change; a null title or content is the same as left out. */
export const PostPatch = z
  .strictObject({ ...postEchoes, ...writable, title: writable.title.nullish(), content: content.nullish() })
  .meta({ description: 'Merge (PATCH): only the properties given change.', example: { published: false } });
export type PostWrite = z.output<typeof PostWrite>;
export type PostPatch = z.output<typeof PostPatch>;

/** The REST Post resource. */
export const Post = z.strictObject({
  id: z.int().min(1),
  title: z.string(),
  slug: z.string().meta({ description: 'From the title when the post was created; kept when the title changes.' }),
  content: z.string(),
  excerpt: z.string().nullable(),
  published: z.boolean().meta({ description: 'true exactly when `status` is PUBLISHED.' }),
  status: z.enum(SETTABLE_POST_STATUSES),
  createdAt: instant,
  updatedAt: instant.nullable(),
  publishedAt: instant.nullable().meta({ description: 'Set on first publication, never cleared.' }),
  viewCount: z.int().min(0).meta({ description: 'REST detail reads.' }),
  author: z.strictObject({ id: z.string(), name: z.string() }).nullable(),
  author_name: z.string().nullable(),
  category: Taxon.nullable(),
  tags: z.array(Taxon),
});
export type Post = z.output<typeof Post>;
export const PostPage = pageOf(Post);
