export { traceService } from './trace-service';
export { cacheCompiledCode } from './compile-cache';
export { tracingSettings, type TracingSettings } from './tracing-settings';
export {
  traceCarrier,
  contextFrom,
  startSpan,
  endSpan,
  inSpan,
  SpanKind,
  type TraceCarrier,
  type SpanOptions,
} from './propagation';
