import type { GraphQLTypes } from '@platform/events';
import { escapeRegExp } from '@platform/stores';
import { keepVisibleComments } from '../../comments/comment-reads';
import type { ContentDeps } from '../../domain/deps';
import { visiblePostsFilter } from '../../posts/post-reads';
import type { Caller } from '../../identity/caller';
import type { CommentDoc, PostDoc, UserDoc } from '../../models';
import { allOf } from '../../models/count';

/**
 * Search by substring: each term becomes an escaped, case-insensitive regex (a `$text` index
 * would find whole, stemmed words only, and the ranking scores substrings too). Candidates are
 * fetched per type, newest first through the `createdAt` index, at most 200 of each, and ranked
 * here: a whole-word match scores more than a substring, a title or name more than a body, every
 * term found adds up, ties go to the newest.
 */
type SearchType = GraphQLTypes.SearchType;
const CANDIDATES = 200;
const NEWEST = { createdAt: -1, _id: -1 } as const;
const MAX_TERMS = 5;

export function searchTerms(query: string): string[] {
  return [
    ...new Set(
      query
        .toLowerCase()
        .split(/\s+/)
        .filter((t) => t.length > 0),
    ),
  ].slice(0, MAX_TERMS);
}

/** Score of one text for the terms: 3 per whole-word hit, 1 per substring hit, times weight. */
export function scoreText(text: string | null | undefined, terms: string[], weight: number): number {
  if (!text) return 0;
  const lower = text.toLowerCase();
  let score = 0;
  for (const term of terms) {
    if (!lower.includes(term)) continue;
    score += new RegExp(`(^|[^\\p{L}\\p{N}])${escapeRegExp(term)}($|[^\\p{L}\\p{N}])`, 'u').test(lower)
      ? 3 * weight
      : weight;
  }
  return score;
}

export async function search(
  deps: ContentDeps,
  caller: Caller,
  query: string,
  type: SearchType,
  limit: number,
): Promise<(UserDoc | PostDoc | CommentDoc)[]> {
  const terms = searchTerms(query);
  if (terms.length === 0) return [];
  const anyTerm = (field: string) => ({
    $or: terms.map((t) => ({ [field]: { $regex: escapeRegExp(t), $options: 'i' } })),
  });
  const scored: { doc: UserDoc | PostDoc | CommentDoc; score: number; at: number }[] = [];
  const tasks: Promise<void>[] = [];
  if (type === 'USER' || type === 'ALL') {
    tasks.push(
      deps.models.users
        .find(anyTerm('name'))
        .sort(NEWEST)
        .limit(CANDIDATES)
        .lean<UserDoc[]>()
        .then((users) => {
          for (const u of users)
            scored.push({ doc: u, score: scoreText(u.name, terms, 3), at: new Date(u.createdAt).getTime() });
        }),
    );
  }
  if (type === 'POST' || type === 'ALL') {
    tasks.push(
      deps.models.posts
        .find(
          allOf<PostDoc>(visiblePostsFilter(caller), {
            $or: [anyTerm('title'), anyTerm('content'), anyTerm('excerpt'), { tags: { $in: terms } }],
          }),
        )
        .sort(NEWEST)
        .limit(CANDIDATES)
        .lean<PostDoc[]>()
        .then((posts) => {
          for (const p of posts) {
            const score =
              scoreText(p.title, terms, 3) +
              scoreText(p.excerpt, terms, 2) +
              scoreText(p.content, terms, 1) +
              terms.filter((t) => p.tags.includes(t)).length * 2;
            scored.push({ doc: p, score, at: new Date(p.createdAt).getTime() });
          }
        }),
    );
  }
  if (type === 'COMMENT' || type === 'ALL') {
    tasks.push(
      (async () => {
        const candidates = await deps.models.comments
          .find(anyTerm('content'))
          .sort(NEWEST)
          .limit(CANDIDATES)
          .lean<CommentDoc[]>();
        for (const c of await keepVisibleComments(deps, caller, candidates))
          scored.push({ doc: c, score: scoreText(c.content, terms, 1), at: new Date(c.createdAt).getTime() });
      })(),
    );
  }
  await Promise.all(tasks);
  return scored
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score || b.at - a.at)
    .slice(0, limit)
    .map((s) => s.doc);
}
