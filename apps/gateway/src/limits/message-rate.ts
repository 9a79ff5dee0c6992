/** A socket's inbound message budget: `perSecond` sustained, up to `burst` at once. */
export interface MessageRate {
  perSecond: number;
  burst: number;
}

/**
 * A token bucket for one socket's messages: full (`burst` tokens) when the socket opens, refilled at
 * `perSecond`. Each message takes a token; false when none is left, and the socket is then closed
 * (graphql-ws 4429, stream-input 1013: docs/security.md "WebSocket limits"). Per socket and in memory:
 * the bound is on what one socket makes this replica do, and the sockets an address or account may
 * hold are capped across replicas (connection-slots.ts).
 */
export function messageBucket(rate: MessageRate, now: () => number = Date.now): () => boolean {
  let tokens = rate.burst;
  let last = now();
  return () => {
    const at = now();
    tokens = Math.min(rate.burst, tokens + ((at - last) / 1000) * rate.perSecond);
    last = at;
    if (tokens < 1) return false;
    tokens -= 1;
    return true;
  };
}
