export { metricsRegistry } from './registry';
export { httpMetrics, labelRoute, UNMATCHED_ROUTE } from './http-metrics';
export { serveMetrics } from './serve-metrics';
export { Counter, Gauge, Histogram, Registry } from 'prom-client';
