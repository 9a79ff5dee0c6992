import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

export type ScriptArg = string | number;

/**
 * A Lua script run by its SHA-1 (`EVALSHA`): the script's text crosses the socket and is hashed by
 * Redis only the first time each server sees it (after a restart or `SCRIPT FLUSH` the `NOSCRIPT`
 * answer sends it once more with `EVAL`). Scripts on the request path (limits, revocation, token
 * tracking) are hundreds of bytes that `EVAL` would send and hash on every call.
 */
export function redisScript(
  lua: string,
): (redis: Redis, keys: readonly string[], args: readonly ScriptArg[]) => Promise<unknown> {
  const sha = createHash('sha1').update(lua).digest('hex');
  return async (redis, keys, args) => {
    try {
      return await redis.evalsha(sha, keys.length, ...keys, ...args);
    } catch (err) {
      if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
      return redis.eval(lua, keys.length, ...keys, ...args);
    }
  };
}
