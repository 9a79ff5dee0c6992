import type { Post } from '@platform/contracts';
import type { ContentDeps } from '../domain/deps';
import type { PostDoc, UserDoc } from '../models';
import { taxonomyNames } from './taxonomy-names';

/**
 * The REST Post resource (the contract's Post); `status` as stored, which may be a retired value an earlier
 * variant of the interface wrote (libs/events closed lists).
 */
type RestPost = Omit<Post, 'status'> & { status: PostDoc['status'] };

/** The authors' names, from the user memo when there is one (`userVersion` read beside the page's own query). */
async function authorNames(
  deps: ContentDeps,
  ids: string[],
  userVersion: Promise<string | null> | undefined,
): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  if (deps.users) {
    const users = await deps.users.load(ids, await (userVersion ?? deps.users.version()));
    return new Map([...users.values()].map((u) => [u._id, u.name]));
  }
  const authors = await deps.models.users
    .find({ _id: { $in: ids } }, { name: 1 })
    .lean<Pick<UserDoc, '_id' | 'name'>[]>();
  return new Map(authors.map((a) => [a._id, a.name]));
}

/**
 * Renders posts with one query for authors (none when the memo knows them) and at most one each for
 * category and tag names not known yet, however many posts.
 */
export async function renderPosts(
  deps: ContentDeps,
  posts: PostDoc[],
  userVersion?: Promise<string | null>,
): Promise<RestPost[]> {
  const authorIds = [...new Set(posts.map((p) => p.author))];
  const categoryIds = [...new Set(posts.flatMap((p) => (p.category ? [p.category] : [])))];
  const tagIds = [...new Set(posts.flatMap((p) => p.tags))];
  const [authorName, categoryName, tagName] = await Promise.all([
    authorNames(deps, authorIds, userVersion),
    taxonomyNames(deps.models.categories, categoryIds),
    taxonomyNames(deps.models.tags, tagIds),
  ]);
  return posts.map((post) => {
    const name = authorName.get(post.author) ?? null;
    return {
      id: post._id,
      title: post.title,
      slug: post.slug,
      content: post.content,
      excerpt: post.excerpt ?? null,
      published: post.published,
      status: post.status,
      createdAt: new Date(post.createdAt).toISOString(),
      updatedAt: post.updatedAt ? new Date(post.updatedAt).toISOString() : null,
      publishedAt: post.publishedAt ? new Date(post.publishedAt).toISOString() : null,
      viewCount: post.viewCount,
      author: name === null ? null : { id: post.author, name },
      author_name: name,
      category: post.category ? { slug: post.category, name: categoryName.get(post.category) ?? post.category } : null,
      tags: post.tags.map((slug) => ({ slug, name: tagName.get(slug) ?? slug })),
    };
  });
}

export async function renderPost(
  deps: ContentDeps,
  post: PostDoc,
  userVersion?: Promise<string | null>,
): Promise<RestPost> {
  return (await renderPosts(deps, [post], userVersion))[0]!;
}
