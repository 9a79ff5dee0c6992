import type { AuthClient } from '../auth-client/auth-client';
import type { UserMemo } from '../cache/user-memo';
import type { Models } from '../models';

/** What the content functions need; main.ts builds it, tests hand in their own. */
export interface ContentDeps {
  models: Models;
  auth: AuthClient;
  /** Called after every successful write so caches of that type drop their entries. */
  invalidate: (type: 'User' | 'Post' | 'Comment') => Promise<void>;
  /** Called after every commit that stored outbox records (main.ts: wakes this process's relay). */
  outboxCommitted?: () => void;
  /** Stored on this process's outbox records, so its relay's change stream leaves out what `outboxCommitted` reported. */
  outboxOrigin?: string;
  /** Authors and other users read by id, remembered in this process (cache/user-memo.ts); MongoDB every time without it. */
  users?: UserMemo;
}
