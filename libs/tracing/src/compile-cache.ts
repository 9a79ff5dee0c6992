import nodeModule from 'node:module';

/** Node.js 22.1+ (the project's types are older than the runtime it pins). */
const withCache = nodeModule as typeof nodeModule & { enableCompileCache?: () => unknown };

/**
 * Keeps the V8 code this process compiles on disk, so the next start of any app reuses it: module
 * loading takes about a quarter less CPU (measured on the gateway: 0.66 → 0.50 s), which a rollout,
 * a restart after a crash and every test that starts the apps gain. Node.js's own cache: the
 * directory is NODE_COMPILE_CACHE, else `node-compile-cache` in the system's temporary directory;
 * NODE_DISABLE_COMPILE_CACHE=1 turns it off. A directory that cannot be written leaves the cache off
 * and the process as it would be without it. Called first in the module main.ts imports first, so
 * everything loaded after it is cached.
 */
export function cacheCompiledCode(): void {
  withCache.enableCompileCache?.();
}
