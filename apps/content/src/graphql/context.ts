import type { Caller } from '../identity/caller';
import type { ContentDeps } from '../domain/deps';
import type { Loaders } from './loaders';

export interface GraphQLContext {
  caller: Caller;
  deps: ContentDeps;
  loaders: Loaders;
  /** Number of @cache hits while resolving this operation (reported in `extensions.cacheHits`). */
  cacheHits?: number;
}
