/**
 * Whether a process exports traces, decided from the OpenTelemetry SDK's standard environment
 * variables (OpenTelemetry Specification, "Environment Variable Specification"). Tracing is off
 * unless the operator names where spans go: an OTLP endpoint (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`
 * or `OTEL_EXPORTER_OTLP_ENDPOINT`), or `OTEL_TRACES_EXPORTER=console`. `OTEL_SDK_DISABLED=true` and
 * `OTEL_TRACES_EXPORTER=none` turn it off whatever else is set. The specification's default exporter
 * is OTLP to localhost; exporting to a collector that is not there would only cost every request a
 * span for nothing, so an endpoint is asked for explicitly.
 */
export type TracingSettings = { enabled: false } | { enabled: true; exporter: 'otlp' | 'console' };

/** The only OTLP transport the platform ships: OTLP/HTTP with JSON bodies (@opentelemetry/exporter-trace-otlp-http). */
const OTLP_PROTOCOL = 'http/json';

type Env = Record<string, string | undefined>;

function setting(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === '' ? undefined : value;
}

export function tracingSettings(env: Env): TracingSettings {
  if (setting(env, 'OTEL_SDK_DISABLED')?.toLowerCase() === 'true') return { enabled: false };
  const exporter = setting(env, 'OTEL_TRACES_EXPORTER')?.toLowerCase();
  if (exporter === 'none') return { enabled: false };
  if (exporter === 'console') return { enabled: true, exporter: 'console' };
  if (exporter !== undefined && exporter !== 'otlp') {
    throw new Error(`OTEL_TRACES_EXPORTER=${exporter} is not supported: use otlp, console or none`);
  }
  const endpoint = setting(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT') ?? setting(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  if (endpoint === undefined) return { enabled: false };
  for (const name of ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'OTEL_EXPORTER_OTLP_PROTOCOL']) {
    const protocol = setting(env, name);
    if (protocol !== undefined && protocol !== OTLP_PROTOCOL) {
      throw new Error(`${name}=${protocol} is not supported: spans are exported as OTLP/HTTP JSON (${OTLP_PROTOCOL})`);
    }
  }
  return { enabled: true, exporter: 'otlp' };
}
