import type { Identity, Role } from '@platform/identity';
import type { ContentEvent } from '@platform/events';

/** The subscriber as far as what they may see is concerned. */
export interface Viewer {
  sub?: string;
  roles: Role[];
}

const RANK: Record<string, number> = { GUEST: 0, USER: 1, MODERATOR: 2, ADMIN: 3 };

/** -1 for anonymous callers (no role at all). */
export function viewerRank(viewer: Viewer): number {
  return viewer.roles.reduce((best, role) => Math.max(best, RANK[role] ?? -1), -1);
}

export function roleRank(role: string): number {
  return RANK[role] ?? 1;
}

export function viewerOf(identity: Identity): Viewer {
  return { ...(identity.sub ? { sub: identity.sub } : {}), roles: identity.roles };
}

const privileged = (viewer: Viewer) => viewer.roles.includes('ADMIN') || viewer.roles.includes('MODERATOR');

/**
 * Unpublished posts (and comments on them) reach only their author and moderators, as content
 * shows drafts only to them; everyone else never learns they exist.
 */
export function canSeeEvent(event: ContentEvent, viewer: Viewer): boolean {
  switch (event.type) {
    case 'post.created':
    case 'post.updated':
    case 'post.deleted':
      return event.data.status === 'PUBLISHED' || privileged(viewer) || (viewer.sub !== undefined && event.data.author.localId === viewer.sub);
    case 'comment.created':
    case 'comment.updated':
    case 'comment.deleted':
      return event.data.post.status === 'PUBLISHED' || privileged(viewer) || (viewer.sub !== undefined && event.data.author.localId === viewer.sub);
    default:
      return true;
  }
}

/** `User.email`: the user themself and ADMIN only (libs/graphql-schema). */
export function canSeeEmail(viewer: Viewer, userLocalId: string | undefined): boolean {
  return viewer.roles.includes('ADMIN') || (viewer.sub !== undefined && viewer.sub === userLocalId);
}
