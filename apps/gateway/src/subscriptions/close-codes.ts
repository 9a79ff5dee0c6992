/** Close codes the gateway's graphql-ws connections end with, besides graphql-ws's own (4400 bad request, 4403 forbidden, 4409, 4499). */
export const CLOSE_UNAUTHORIZED = 4401;
/**
 * Too many: the client IP's budget for logins refused for their credentials is spent (HTTP's 429),
 * the address or account already holds its connections, or the socket sent messages faster than its
 * budget (docs/security.md "WebSocket limits"). graphql-ws uses 4429 for too many `connection_init`s
 * on one socket; its clients treat the code as fatal, like 4401, and do not retry on their own: a
 * retry at once would only be refused again.
 */
export const CLOSE_TOO_MANY_REQUESTS = 4429;
/**
 * The credential could not be checked (auth's keys or API-key lookup unavailable, Redis down):
 * "try again later" (RFC 6455 registry), which graphql-ws clients retry, unlike 4401.
 */
export const CLOSE_TRY_AGAIN_LATER = 1013;
/** Policy violation: the subscriber did not read fast enough and its buffer overflowed. */
export const CLOSE_SLOW_CONSUMER = 1008;
