import { Writable } from 'node:stream';
import { context, trace } from '@opentelemetry/api';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { createLogger } from '../src';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write: (chunk: Buffer, _e, done) => (lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>), done()),
  });
  return { logger: createLogger('test', 'info', stream), lines };
}

describe('log lines and traces', () => {
  const provider = new NodeTracerProvider();
  // As the apps register it when tracing is on (libs/tracing): the global provider and context manager.
  beforeAll(() => provider.register());
  afterAll(async () => {
    context.disable();
    trace.disable();
    await provider.shutdown();
  });

  it("carry the active span's trace_id and span_id", async () => {
    const { logger, lines } = capture();
    const span = provider.getTracer('test').startSpan('work');
    await context.with(trace.setSpan(context.active(), span), async () => {
      await Promise.resolve();
      logger.info('inside');
    });
    span.end();
    expect(lines[0]).toMatchObject({
      msg: 'inside',
      trace_id: span.spanContext().traceId,
      span_id: span.spanContext().spanId,
    });
    expect(lines[0]!.trace_id).toMatch(/^[0-9a-f]{32}$/);
  });

  it('carry nothing more without an active span', () => {
    const { logger, lines } = capture();
    logger.info('outside');
    expect(lines[0]).toMatchObject({ msg: 'outside' });
    expect(lines[0]).not.toHaveProperty('trace_id');
    expect(lines[0]).not.toHaveProperty('span_id');
  });
});
