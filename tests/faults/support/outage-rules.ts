import type { Interface, RequestRecord } from '@platform/testing';

/**
 * The longest a request of each interface may take, from the platform's own documented bounds
 * (docs/configuration.md), doubled for a loaded two-core machine. These are correctness bounds (a
 * request never hangs past the timeouts the platform sets itself), not performance figures.
 * - speech: a generation waits at most `SPEECH_FRAME_TIMEOUT_MS` (15 s) for each frame; its short text is
 *   one piece, so one wait, after the key lookup (auth within `UPSTREAM_TIMEOUT_MS`, 10 s) and the speech
 *   store (MongoDB server selection, 5 s);
 * - GraphQL through the gateway: `UPSTREAM_TIMEOUT_MS` (10 s) for content's answer, and content's own
 *   MongoDB server selection (5 s) inside it;
 * - OAuth through the gateway: `UPSTREAM_TIMEOUT_MS` (10 s) for auth's answer.
 */
export const BOUND_MS: Record<Interface, number> = {
  speech: 2 * (15_000 + 10_000 + 5_000),
  graphql: 2 * 10_000,
  oauth: 2 * 10_000,
};

/** Status codes a client may retry after (RFC 9110 §15.6): the gateway's answers for an unreachable, failing or slow upstream. */
const RETRYABLE_STATUS = new Set([502, 503, 504]);

/**
 * Why a record taken during an outage is not an acceptable answer, or null when it is: it succeeded, or it
 * failed in its interface's shape with a retryable error, within its bound. `transportAllowed` is set for
 * requests that went to a replica the test killed (a load balancer retries those elsewhere).
 */
export function violation(record: RequestRecord, transportAllowed: boolean): string | null {
  const { outcome } = record;
  if (record.latencyMs > BOUND_MS[record.interface])
    return `took ${record.latencyMs} ms, over the ${BOUND_MS[record.interface]} ms bound`;
  if (outcome.code === 'client-timeout') return 'never answered';
  if (outcome.ok) return null;
  if (outcome.status === undefined) {
    return transportAllowed ? null : `transport failure ${outcome.code ?? ''} ${outcome.message ?? ''}`;
  }
  if (outcome.status === 500) return `500 ${outcome.code ?? ''} ${outcome.message ?? ''}`;
  if (record.operation === 'tts-websocket') {
    // stream-input (docs/speech.md): a speech error message, then close 1011 (failed) or 1013 (try again later); or the upgrade refused with a retryable status.
    if (outcome.code === 'upgrade-refused')
      return RETRYABLE_STATUS.has(outcome.status) ? null : `upgrade refused with ${outcome.status}`;
    if (outcome.status === 1001 && transportAllowed) return null;
    return [1011, 1013].includes(outcome.status) && outcome.code !== 'incomplete'
      ? null
      : `closed ${outcome.status} ${outcome.code ?? ''}`;
  }
  if (record.interface === 'graphql') {
    // GraphQL errors carry extensions.code; an unavailable upstream is UPSTREAM_UNAVAILABLE (docs/gateway.md).
    return outcome.code === 'UPSTREAM_UNAVAILABLE' ||
      (RETRYABLE_STATUS.has(outcome.status) && outcome.code !== undefined)
      ? null
      : `${outcome.status} ${outcome.code ?? 'no code'} ${outcome.message ?? ''}`;
  }
  if (record.interface === 'oauth') {
    // RFC 6749 §5.2 / §4.1.2.1: temporarily_unavailable; through the gateway an unreachable auth is a retryable status with an OAuth error.
    return outcome.code === 'temporarily_unavailable' ||
      (RETRYABLE_STATUS.has(outcome.status) && outcome.code !== undefined)
      ? null
      : `${outcome.status} ${outcome.code ?? 'no code'} ${outcome.message ?? ''}`;
  }
  // Speech REST: {detail:{status,message}} with a retryable status.
  return RETRYABLE_STATUS.has(outcome.status) && outcome.code !== undefined
    ? null
    : `${outcome.status} ${outcome.code ?? 'no code'} ${outcome.message ?? ''}`;
}
