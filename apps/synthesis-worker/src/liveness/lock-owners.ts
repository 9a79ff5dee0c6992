/**
 * Which process owns a BullMQ job lock: the lock holds its worker's token, `<worker id>:<n>` (the
 * takeover slot's tokens too, takeover-slot.ts). The lock heartbeat renews the locks of its own
 * workers (heartbeat-thread.ts) and the death watch releases those of dead ones (death-watch.ts),
 * both with this one loop.
 */

/**
 * A Lua script's loop over the queue's active jobs (the list KEYS[1]) whose lock
 * (`ARGV[1] .. jobId .. ':lock'`) holds a token of one of the worker ids `ARGV[firstIdArg..]`: runs
 * `action` with `jobId`, `lockKey` and `token` in scope and gathers those job ids in `matched`.
 */
export function forEachLockOf(firstIdArg: number, action: string): string {
  return `
local matched = {}
for _, jobId in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do
  local lockKey = ARGV[1] .. jobId .. ':lock'
  local token = redis.call('GET', lockKey)
  if token then
    for i = ${firstIdArg}, #ARGV do
      if string.sub(token, 1, #ARGV[i] + 1) == ARGV[i] .. ':' then
        ${action}
        matched[#matched + 1] = jobId
        break
      end
    end
  end
end
`;
}
