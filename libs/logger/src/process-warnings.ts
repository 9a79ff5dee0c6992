import type { Logger } from './create-logger';

/**
 * Warnings known to be noise, by type: kafkajs 2.2 (the last release) schedules its request-queue
 * check with a delay that can be negative, which Node.js 24+ reports as a TimeoutNegativeWarning
 * and runs after 1 ms, as kafkajs meant.
 */
const NOISE = new Set(['TimeoutNegativeWarning']);

/**
 * Process warnings (deprecations, experimental features, timers) as the app's JSON log lines
 * instead of Node's plain-text lines on stderr, which break a log that is JSON from its first line;
 * known noise at debug level. Node prints warnings through its own `warning` listener: it is
 * replaced by this one.
 */
export function logProcessWarnings(logger: Logger): void {
  process.removeAllListeners('warning');
  process.on('warning', (warning) => {
    const fields = { warning: { name: warning.name, message: warning.message, stack: warning.stack } };
    if (NOISE.has(warning.name)) logger.debug(fields, 'process warning');
    else logger.warn(fields, 'process warning');
  });
}
