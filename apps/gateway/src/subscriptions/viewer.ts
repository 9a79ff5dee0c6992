import type { Identity, Role } from '@platform/identity';
import { ROLE_RANKS, type ContentEvent } from '@platform/events';

/** The subscriber as far as what they may see is concerned. */
export interface Viewer {
  sub?: string;
  roles: Role[];
}

// The ranks content's `@auth` compares (libs/events closed lists): GUEST 0 < USER 1 < MODERATOR 2 < ADMIN 3.
const RANK = ROLE_RANKS;
const USER_RANK = ROLE_RANKS.get('USER')!;

/**
 * -1 for anonymous callers. Any authenticated caller is at least USER, as content's own `@auth`
 * has it (docs/content.md: `ROLE_USER` = any authenticated role), so a token without user roles (a
 * client-credentials token) is judged the same over HTTP and over the WebSocket.
 */
export function viewerRank(viewer: Viewer): number {
  const best = viewer.roles.reduce((rank, role) => Math.max(rank, RANK.get(role) ?? -1), -1);
  return viewer.sub !== undefined ? Math.max(best, USER_RANK) : best;
}

export function roleRank(role: string): number {
  return RANK.get(role) ?? USER_RANK;
}

export function viewerOf(identity: Identity): Viewer {
  return { ...(identity.sub ? { sub: identity.sub } : {}), roles: identity.roles };
}

const privileged = (viewer: Viewer) => viewer.roles.includes('ADMIN') || viewer.roles.includes('MODERATOR');

/**
 * Unpublished posts reach only their author and moderators, and comments on them only the post's
 * author and moderators (not the comment's own author), as content shows them; everyone else never
 * learns they exist.
 */
export function canSeeEvent(event: ContentEvent, viewer: Viewer): boolean {
  switch (event.type) {
    case 'post.created':
    case 'post.updated':
    case 'post.deleted':
      return (
        event.data.status === 'PUBLISHED' ||
        privileged(viewer) ||
        (viewer.sub !== undefined && event.data.author.localId === viewer.sub)
      );
    case 'comment.created':
    case 'comment.updated':
    case 'comment.deleted':
      return (
        event.data.post.status === 'PUBLISHED' ||
        privileged(viewer) ||
        (viewer.sub !== undefined && event.data.post.authorId === viewer.sub)
      );
    default:
      return true;
  }
}

/** `User.email`: the user themself and ADMIN only (libs/graphql-schema). */
export function canSeeEmail(viewer: Viewer, userLocalId: string | undefined): boolean {
  return viewer.roles.includes('ADMIN') || (viewer.sub !== undefined && viewer.sub === userLocalId);
}
