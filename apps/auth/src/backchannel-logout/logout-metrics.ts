import { Counter, metricsRegistry } from '@platform/metrics';

/** Outcomes of back-channel logout delivery attempts (docs/operations.md, "Metrics"). */
const LOGOUT_RESULTS = ['delivered', 'retried', 'failed'] as const;
type LogoutResult = (typeof LOGOUT_RESULTS)[number];

const attempts = new Counter({
  name: 'auth_backchannel_logout_deliveries_total',
  help: 'Back-channel logout delivery attempts, by result: delivered (2xx), retried (to be tried again), failed (given up: rejected by the RP, a refused address, or the last attempt).',
  labelNames: ['result'] as const,
  registers: [metricsRegistry],
});
// At 0 from boot, so rate() and alerts have a series before the first logout.
for (const result of LOGOUT_RESULTS) attempts.inc({ result }, 0);

export function countLogoutDelivery(result: LogoutResult): void {
  attempts.inc({ result });
}
