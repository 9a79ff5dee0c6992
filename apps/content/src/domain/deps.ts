import type { AuthClient } from '../auth-client/auth-client';
import type { Models } from '../models';

/** What the content functions need; main.ts builds it, tests hand in their own. */
export interface ContentDeps {
  models: Models;
  auth: AuthClient;
  /** Called after every successful write so caches of that type drop their entries. */
  invalidate: (type: 'User' | 'Post' | 'Comment') => Promise<void>;
}
