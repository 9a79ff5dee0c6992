import type { PostSnapshot } from '@platform/events';
import { toGlobalId } from '@platform/graphql-schema';

/** The author of the posts `postSnapshot` makes (a user reference: no email), account `acc-1`. */
export const SNAPSHOT_AUTHOR: PostSnapshot['author'] = {
  id: toGlobalId('User', 'acc-1'),
  localId: 'acc-1',
  name: 'Ada',
  avatar: null,
  status: 'ACTIVE',
  role: 'USER',
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: null,
};

/**
 * A published post's event snapshot (libs/events), as content would publish it, for tests that feed
 * the gateway's subscriptions events of their own; `overrides` set what a test is about.
 */
export function postSnapshot(localId: number, overrides: Partial<PostSnapshot> = {}): PostSnapshot {
  return {
    id: toGlobalId('Post', localId),
    localId,
    title: `Post ${localId}`,
    slug: `post-${localId}`,
    content: 'body',
    excerpt: null,
    status: 'PUBLISHED',
    published: true,
    tags: [],
    category: null,
    viewCount: 0,
    createdAt: '2026-01-01T00:00:00.000Z',
    publishedAt: null,
    updatedAt: null,
    author: SNAPSHOT_AUTHOR,
    ...overrides,
  };
}
