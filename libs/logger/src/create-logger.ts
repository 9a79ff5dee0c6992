import { isSpanContextValid, trace } from '@opentelemetry/api';
import pino from 'pino';
import { scrubSecrets } from './redact';

export type Logger = pino.Logger;

/**
 * Properties some errors carry that hold what a client sent or what went over the wire: body-parser's
 * `body` (the raw request body of a JSON syntax error, passwords included), HTTP clients' request and
 * response objects with their headers.
 */
const PAYLOAD_PROPERTIES = ['body', 'rawBody', 'headers', 'config', 'request', 'response'];

/** pino's error serializer without the payload an error may carry. */
function errorWithoutPayload(err: Error): unknown {
  const serialized = pino.stdSerializers.err(err) as unknown;
  if (typeof serialized === 'object' && serialized !== null) {
    for (const name of PAYLOAD_PROPERTIES) delete (serialized as Record<string, unknown>)[name];
  }
  return serialized;
}

/**
 * The active span's ids (W3C Trace Context), so a log line can be found from its trace and the
 * other way round. With tracing off there is never an active span and lines carry nothing more.
 */
function traceFields(): Record<string, string> {
  const span = trace.getActiveSpan();
  if (!span) return {};
  const ids = span.spanContext();
  return isSpanContextValid(ids) ? { trace_id: ids.traceId, span_id: ids.spanId } : {};
}

/**
 * JSON logger for a service. Secrets travel in a few well-known places; they are redacted here
 * once so no handler can log them by accident: by path for the fields we know, and in every
 * serialized line (child loggers and kafkajs lines included) for whatever looks like a secret
 * wherever it turns up (redact.ts). `destination` is for tests; services write to stdout.
 */
export function createLogger(
  service: string,
  level: string = process.env.LOG_LEVEL ?? 'info',
  destination?: pino.DestinationStream,
): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers["xi-api-key"]',
        'req.headers.cookie',
        'req.headers.dpop',
        'req.headers["x-internal-secret"]',
        'req.headers["x-platform-identity"]',
        'password',
        '*.password',
        'client_secret',
        '*.client_secret',
      ],
      censor: '[redacted]',
    },
    serializers: { err: errorWithoutPayload },
    hooks: { streamWrite: scrubSecrets },
    mixin: traceFields,
  };
  return destination ? pino(options, destination) : pino(options);
}
