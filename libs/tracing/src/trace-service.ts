import { tracingSettings } from './tracing-settings';

/**
 * Turns tracing on for this process when the environment asks for it (tracing-settings.ts). Each
 * app calls it from a module that main.ts imports first: the HTTP and express instrumentations
 * patch those modules when they are loaded, so they must be registered before anything loads them.
 * With tracing off the SDK is never loaded: the @opentelemetry/api calls elsewhere are no-ops.
 */
export function traceService(serviceName: string, env: Record<string, string | undefined> = process.env): boolean {
  const settings = tracingSettings(env);
  if (!settings.enabled) return false;
  // A synchronous require on purpose: an import() would resolve after main.ts has loaded express.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { startTracing } = require('./start-tracing') as typeof import('./start-tracing');
  startTracing(serviceName, settings);
  return true;
}
