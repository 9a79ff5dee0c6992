import {
  context,
  propagation,
  trace,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  type Attributes,
  type Context,
  type Span,
  type TextMapGetter,
} from '@opentelemetry/api';

/**
 * W3C Trace Context (`traceparent`, `tracestate`) carried across the platform's own hops: a BullMQ
 * job's data (gateway to synthesis worker), an outbox record and a Kafka message's headers (content
 * to gateway). With tracing off no propagator is registered: carriers stay empty and spans are
 * non-recording, so these helpers cost next to nothing.
 */
export type TraceCarrier = Record<string, string>;

export { SpanKind };

const TRACER = '@platform/tracing';

/**
 * The trace context of `span` (default: the active span) as a carrier to store or send; `{}` when
 * there is none (tracing off).
 */
export function traceCarrier(span?: Span): TraceCarrier {
  const carrier: TraceCarrier = {};
  propagation.inject(span ? trace.setSpan(context.active(), span) : context.active(), carrier);
  return carrier;
}

/** Kafka header values arrive as Buffers (or lists of them). */
const headerGetter: TextMapGetter<Record<string, unknown>> = {
  keys: (carrier) => Object.keys(carrier),
  get(carrier, key) {
    const value = carrier[key];
    const first: unknown = Array.isArray(value) ? value[0] : value;
    if (typeof first === 'string') return first;
    if (Buffer.isBuffer(first)) return first.toString('utf8');
    return undefined;
  },
};

/**
 * The context a carrier (job data, outbox record, message headers) describes; the root context when
 * it has none. Never the active context: work started from a timer or a callback may still run in
 * the context of whatever scheduled it, which is not its parent.
 */
export function contextFrom(carrier: Record<string, unknown> | undefined): Context {
  return propagation.extract(ROOT_CONTEXT, carrier ?? {}, headerGetter);
}

export interface SpanOptions {
  kind: SpanKind;
  /** The parent's context (contextFrom); default the active one. */
  parent?: Context;
  attributes?: Attributes;
}

/** Starts a span the caller ends (for work that is not one function call, such as a generator). */
export function startSpan(name: string, options: SpanOptions): Span {
  return trace
    .getTracer(TRACER)
    .startSpan(name, { kind: options.kind, attributes: options.attributes }, options.parent ?? context.active());
}

/** Ends a span, recording `err` (when given) as its error. */
export function endSpan(span: Span, err?: unknown): void {
  if (err !== undefined) {
    span.recordException(err instanceof Error ? err : String(err));
    span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
  }
  span.end();
}

/** Runs `work` in a new span, active for everything it calls (logs carry its trace id); the span ends with it. */
export async function inSpan<T>(name: string, options: SpanOptions, work: (span: Span) => Promise<T>): Promise<T> {
  const span = startSpan(name, options);
  try {
    const result = await context.with(trace.setSpan(options.parent ?? context.active(), span), () => work(span));
    endSpan(span);
    return result;
  } catch (err) {
    endSpan(span, err);
    throw err;
  }
}
