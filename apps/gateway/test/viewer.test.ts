import { buildContentEvent, type CommentSnapshot } from '@platform/events';
import { toGlobalId } from '@platform/graphql-schema';
import { canSeeEvent, type Viewer } from '../src/subscriptions/viewer';

// Comment events on a draft follow content's rule for comments (comments/comment-reads.ts): visible
// exactly when the post is, so to the post's author and moderators, not to the commenter.
function commentOnPost(
  status: 'DRAFT' | 'PUBLISHED',
  postAuthor: string | undefined,
  commenter: string,
): CommentSnapshot {
  return {
    id: toGlobalId('Comment', 1),
    localId: 1,
    content: 'hello',
    parentId: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: null,
    author: {
      id: toGlobalId('User', commenter),
      localId: commenter,
      name: 'Commenter',
      avatar: null,
      status: 'ACTIVE',
      role: 'USER',
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: null,
    },
    post: {
      id: toGlobalId('Post', 7),
      localId: 7,
      title: 'Post 7',
      slug: 'post-7',
      status,
      published: status === 'PUBLISHED',
      createdAt: '2026-01-01T00:00:00.000Z',
      ...(postAuthor ? { authorId: postAuthor } : {}),
    },
  };
}

const postAuthor: Viewer = { sub: 'acc-author', roles: ['USER'] };
const commenter: Viewer = { sub: 'acc-commenter', roles: ['USER'] };
const stranger: Viewer = { sub: 'acc-stranger', roles: ['USER'] };
const moderator: Viewer = { sub: 'acc-mod', roles: ['MODERATOR'] };
const anonymous: Viewer = { roles: [] };

describe('canSeeEvent for comments', () => {
  it.each(['comment.created', 'comment.updated', 'comment.deleted'] as const)(
    '%s on a draft reaches the post author and moderators only',
    (type) => {
      const event = buildContentEvent(type, commentOnPost('DRAFT', 'acc-author', 'acc-commenter'));
      expect([postAuthor, commenter, stranger, moderator, anonymous].map((v) => canSeeEvent(event, v))).toEqual([
        true,
        false,
        false,
        true,
        false,
      ]);
    },
  );

  it('on a published post reaches everyone', () => {
    const event = buildContentEvent('comment.created', commentOnPost('PUBLISHED', 'acc-author', 'acc-commenter'));
    expect([postAuthor, commenter, stranger, moderator, anonymous].every((v) => canSeeEvent(event, v))).toBe(true);
  });

  it('on a draft, in an event without the post author (older content), reaches moderators only', () => {
    const event = buildContentEvent('comment.created', commentOnPost('DRAFT', undefined, 'acc-commenter'));
    expect([postAuthor, commenter, moderator].map((v) => canSeeEvent(event, v))).toEqual([false, false, true]);
  });
});
