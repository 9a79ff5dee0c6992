import { PostPatch, PostWrite } from '@platform/contracts';
import { slugify } from './slug';
import { parseBody } from '../http/parse-request';
import type { PostFields } from './post-writes';

/**
 * REST Post bodies, read through their contract (PostWrite for create and replace, PostPatch for merge):
 * categories and tags arrive as the names (or slugs) clients give; here they become slugs, and the names
 * of slugs not known yet are kept so they can be created with them.
 */
interface RestPostInput {
  title?: string;
  content?: string;
  published?: boolean;
  category?: string | null;
  tags?: string[];
  /** slug → display name given by the client (the first one given). */
  names: Map<string, string>;
}

export function parseRestPostBody(raw: unknown, mode: 'create' | 'replace' | 'merge'): RestPostInput {
  const body = mode === 'merge' ? parseBody(PostPatch, raw) : parseBody(PostWrite, raw);
  const names = new Map<string, string>();
  const slugOf = (name: string): string => {
    const slug = slugify(name, '');
    if (!names.has(slug)) names.set(slug, name);
    return slug;
  };
  const input: RestPostInput = { names };
  if (body.title != null) input.title = body.title;
  if (body.content != null) input.content = body.content;
  if (body.published !== undefined) input.published = body.published;
  if (body.category !== undefined) input.category = body.category === null ? null : slugOf(body.category);
  if (body.tags !== undefined) input.tags = [...new Set(body.tags.map(slugOf))];
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
