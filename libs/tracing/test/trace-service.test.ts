import { traceService } from '../src/trace-service';

// Stands in for the SDK: records whether (and how) trace-service loaded it.
const started: unknown[][] = [];
let loaded = false;
jest.mock('../src/start-tracing', () => {
  loaded = true;
  return { startTracing: (...args: unknown[]) => started.push(args) };
});

describe('traceService', () => {
  it('does not load the SDK when tracing is off', () => {
    expect(traceService('gateway', {})).toBe(false);
    expect(
      traceService('gateway', { OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }),
    ).toBe(false);
    expect(loaded).toBe(false);
    expect(started).toEqual([]);
  });

  it('loads and starts it with the service name when an endpoint is set', () => {
    expect(traceService('content', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(loaded).toBe(true);
    expect(started).toEqual([['content', { enabled: true, exporter: 'otlp' }]]);
  });
});
