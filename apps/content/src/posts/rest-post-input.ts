import { slugify } from './slug';
import { Problems, readBoolean, readString, rejectUnknown, requireObjectBody } from '../http/validate';
import type { PostFields } from './post-writes';

/**
 * REST Post bodies. Writable: title (≤255), content (≤100 000), published, category, tags.
 * Read-only properties a client echoes back (id, slug, createdAt, author …) are ignored; any
 * other property is a 400 naming it. category: a slug/name string or {slug} / {name};
 * tags: up to 20 strings or {slug} / {name} objects. Names become slugs; unknown ones are created.
 */
const WRITABLE: ReadonlySet<string> = new Set(['title', 'content', 'published', 'category', 'tags']);
const READ_ONLY: ReadonlySet<string> = new Set([
  'id',
  'slug',
  'createdAt',
  'updatedAt',
  'publishedAt',
  'author',
  'author_name',
  'viewCount',
  'status',
  'excerpt',
]);
const MAX_TAGS = 20;

interface RestPostInput {
  title?: string;
  content?: string;
  published?: boolean;
  category?: string | null;
  tags?: string[];
  /** slug → display name given by the client. */
  names: Map<string, string>;
}

function readTaxon(
  problems: Problems,
  property: string,
  value: unknown,
  names: Map<string, string>,
): string | undefined {
  let text: unknown = value;
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const record = value as Record<string, unknown>;
    text = record.slug ?? record.name;
  }
  if (typeof text !== 'string') {
    problems.add(property, 'This value should be a slug string or an object with a slug.');
    return undefined;
  }
  const trimmed = text.trim();
  if (trimmed.length === 0 || trimmed.length > 50) {
    problems.add(property, 'This value should have 1 to 50 characters.');
    return undefined;
  }
  const slug = slugify(trimmed, '');
  if (!slug) {
    problems.add(property, 'This value should contain letters or digits.');
    return undefined;
  }
  if (!names.has(slug)) names.set(slug, trimmed);
  return slug;
}

export function parseRestPostBody(raw: unknown, mode: 'create' | 'replace' | 'merge'): RestPostInput {
  const body = requireObjectBody(raw);
  const problems = new Problems();
  rejectUnknown(problems, body, WRITABLE, READ_ONLY);
  const required = mode !== 'merge';
  const names = new Map<string, string>();
  const input: RestPostInput = { names };
  const title = readString(problems, body, 'title', { required, min: 1, max: 255 });
  if (title !== undefined) input.title = title;
  const content = readString(problems, body, 'content', { required, max: 100_000, trim: false });
  if (content !== undefined) {
    if (content.trim().length === 0) problems.add('content', 'This value should not be blank.');
    else input.content = content;
  }
  const published = readBoolean(problems, body, 'published');
  if (published !== undefined) input.published = published;
  if ('category' in body) {
    if (body.category === null) input.category = null;
    else {
      const category = readTaxon(problems, 'category', body.category, names);
      if (category !== undefined) input.category = category;
    }
  }
  if ('tags' in body) {
    if (!Array.isArray(body.tags)) problems.add('tags', 'This value should be of type array.');
    else if (body.tags.length > MAX_TAGS)
      problems.add('tags', `This collection should contain ${MAX_TAGS} elements or less.`);
    else {
      const tags: string[] = [];
      body.tags.forEach((tag, i) => {
        const slug = readTaxon(problems, `tags[${i}]`, tag, names);
        if (slug !== undefined && !tags.includes(slug)) tags.push(slug);
      });
      input.tags = tags;
    }
  }
  problems.throwIfAny();
  return input;
}

/** PUT replaces: properties left out take their defaults (published false, no category, no tags). */
export function replacementFields(input: RestPostInput): Partial<PostFields> & { published: boolean } {
  return {
    title: input.title!,
    content: input.content!,
    published: input.published ?? false,
    category: input.category ?? null,
    tags: input.tags ?? [],
  };
}

/** PATCH merges: only properties present change. */
export function mergeFields(input: RestPostInput): Partial<PostFields> & { published?: boolean } {
  const { names: _names, ...rest } = input;
  return rest;
}
