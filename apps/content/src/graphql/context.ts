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
  /** Number of @cache hits while resolving this operation (reported in `extensions.cacheHits`). */
  cacheHits?: number;
}
