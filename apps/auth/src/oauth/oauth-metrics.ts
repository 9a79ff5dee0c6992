import { Counter, metricsRegistry } from '@platform/metrics';

/**
 * The authorization server's Prometheus metrics (docs/operations.md, "Metrics"), on the process's
 * registry that METRICS_PORT serves. Label values come from closed sets: the grants auth serves, the
 * OAuth error codes it answers with (RFC 6749 §5.2, RFC 7009 §2.2.1, RFC 8628 §3.5, RFC 9449 §12.2)
 * and the endpoints below; never from what a client sent.
 */
const tokensIssued = new Counter({
  name: 'auth_tokens_issued_total',
  help: 'Successful token responses at /token, by grant_type.',
  labelNames: ['grant_type'] as const,
  registers: [metricsRegistry],
});

const tokenErrors = new Counter({
  name: 'auth_token_errors_total',
  help: 'OAuth error answers of the token, introspection, revocation and device authorization endpoints, by endpoint and error code.',
  labelNames: ['endpoint', 'error'] as const,
  registers: [metricsRegistry],
});

const introspections = new Counter({
  name: 'auth_introspections_total',
  help: 'Answered introspection requests (RFC 7662), by whether the token was reported active.',
  labelNames: ['active'] as const,
  registers: [metricsRegistry],
});

const revocations = new Counter({
  name: 'auth_revocations_total',
  help: 'Revocation requests (RFC 7009) answered 200 (an unknown or already revoked token included, as the RFC requires).',
  registers: [metricsRegistry],
});

/** The endpoints whose error answers are counted, by path, with their `endpoint` label. */
const ENDPOINTS: ReadonlyMap<string, string> = new Map([
  ['/token', 'token'],
  ['/introspect', 'introspection'],
  ['/revoke', 'revocation'],
  ['/device_authorization', 'device_authorization'],
]);

export function countTokenIssued(grantType: string): void {
  tokensIssued.inc({ grant_type: grantType });
}

export function countIntrospection(active: boolean): void {
  introspections.inc({ active: String(active) });
}

export function countRevocation(): void {
  revocations.inc();
}

/** An error answer with OAuth code `error` to a request for `url`; paths other than the endpoints above are not counted. */
export function countOAuthError(url: string | undefined, error: string): void {
  const endpoint = ENDPOINTS.get((url ?? '').split('?')[0]!);
  if (endpoint) tokenErrors.inc({ endpoint, error });
}
