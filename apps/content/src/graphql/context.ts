import type { RequestUserVersion } from '../cache/user-memo';
import type { Caller } from '../identity/caller';
import type { ContentDeps } from '../domain/deps';
import type { CursorCodec } from './cursors';
import type { Loaders } from './loaders';

export interface GraphQLContext {
  caller: Caller;
  deps: ContentDeps;
  loaders: Loaders;
  /** Seals and opens page cursors (cursors.ts). */
  cursors: CursorCodec;
  /** The `User` version this request loads users under; a `@cache` look-up reads it in its own round trip. */
  userVersion?: RequestUserVersion;
  /** The limits gate (limits-gate.ts) found this request's operation within the query limits. */
  limitsChecked?: boolean;
  /** Number of @cache hits while resolving this operation (reported in `extensions.cacheHits`). */
  cacheHits?: number;
}
