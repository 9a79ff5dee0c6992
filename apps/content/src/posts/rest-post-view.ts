import type { ContentDeps } from '../domain/deps';
import type { PostDoc, UserDoc } from '../models';
import { taxonomyNames } from './taxonomy-names';

/** The REST Post resource of the content API (plus status/excerpt/viewCount/publishedAt, read-only). */
export interface RestPost {
  id: number;
  title: string;
  slug: string;
  content: string;
  excerpt: string | null;
  published: boolean;
  status: string;
  createdAt: string;
  updatedAt: string | null;
  publishedAt: string | null;
  viewCount: number;
  author: { id: string; name: string } | null;
  author_name: string | null;
  category: { slug: string; name: string } | null;
  tags: { slug: string; name: string }[];
}

/** Renders posts with one query for authors and at most one each for category and tag names not known yet, however many posts. */
export async function renderPosts(deps: ContentDeps, posts: PostDoc[]): Promise<RestPost[]> {
  const authorIds = [...new Set(posts.map((p) => p.author))];
  const categoryIds = [...new Set(posts.flatMap((p) => (p.category ? [p.category] : [])))];
  const tagIds = [...new Set(posts.flatMap((p) => p.tags))];
  const [authors, categoryName, tagName] = await Promise.all([
    authorIds.length ? deps.models.users.find({ _id: { $in: authorIds } }, { name: 1 }).lean<Pick<UserDoc, '_id' | 'name'>[]>() : [],
    taxonomyNames(deps.models.categories, categoryIds),
    taxonomyNames(deps.models.tags, tagIds),
  ]);
  const authorName = new Map(authors.map((a) => [a._id, a.name]));
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

export async function renderPost(deps: ContentDeps, post: PostDoc): Promise<RestPost> {
  return (await renderPosts(deps, [post]))[0]!;
}
