import { collectDefaultMetrics, Registry } from 'prom-client';

/**
 * The process's one registry: every metric an app records is registered here and served by
 * `serveMetrics`. prom-client's default metrics (process_*, nodejs_* such as
 * nodejs_eventloop_lag_seconds and nodejs_heap_size_used_bytes) are collected into it. No default
 * labels: Prometheus adds `job` and `instance` when it scrapes.
 */
export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry });
