import { context, propagation, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { contextFrom, inSpan, SpanKind, startSpan, traceCarrier } from '../src/propagation';

describe("trace context across the platform's hops (tracing on)", () => {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  beforeAll(() => provider.register());
  afterAll(async () => {
    context.disable();
    trace.disable();
    propagation.disable();
    await provider.shutdown();
  });

  it("a span's carrier holds its W3C traceparent, and a child started from it (as Kafka headers, Buffers) is its child", async () => {
    const parent = startSpan('producer', { kind: SpanKind.PRODUCER });
    const carrier = traceCarrier(parent);
    const { traceId, spanId } = parent.spanContext();
    expect(carrier.traceparent).toBe(`00-${traceId}-${spanId}-01`);
    parent.end();

    const headers = { ce_id: Buffer.from('e1'), traceparent: Buffer.from(carrier.traceparent!) };
    await inSpan('consumer', { kind: SpanKind.CONSUMER, parent: contextFrom(headers) }, async () => undefined);
    const consumer = exporter.getFinishedSpans().find((s) => s.name === 'consumer')!;
    expect(consumer.spanContext().traceId).toBe(traceId);
    expect(consumer.parentSpanContext?.spanId).toBe(spanId);
  });

  it('without a carrier (or with a malformed one) a span starts a trace of its own, whatever is active', async () => {
    const outer = startSpan('outer', { kind: SpanKind.SERVER });
    await context.with(trace.setSpan(context.active(), outer), async () => {
      for (const carrier of [undefined, {}, { traceparent: 'not-a-traceparent' }]) {
        const span = startSpan('detached', { kind: SpanKind.CONSUMER, parent: contextFrom(carrier) });
        expect(span.spanContext().traceId).not.toBe(outer.spanContext().traceId);
        span.end();
      }
    });
    outer.end();
  });

  it('inSpan records a failure and ends the span', async () => {
    await expect(
      inSpan('failing', { kind: SpanKind.INTERNAL }, () => Promise.reject(new Error('boom'))),
    ).rejects.toThrow('boom');
    const failing = exporter.getFinishedSpans().find((s) => s.name === 'failing')!;
    expect(failing.status).toMatchObject({ code: 2, message: 'boom' });
    expect(failing.events.map((e) => e.name)).toContain('exception');
  });
});

describe('with tracing off (no SDK registered)', () => {
  it('carriers are empty', () => {
    expect(traceCarrier()).toEqual({});
    expect(traceCarrier(startSpan('x', { kind: SpanKind.PRODUCER }))).toEqual({});
  });
});
