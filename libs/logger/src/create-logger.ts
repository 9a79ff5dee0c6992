import pino from 'pino';

export type Logger = pino.Logger;

/**
 * JSON logger for a service. Secrets travel in a few well-known places; they are redacted here
 * once so no handler can log them by accident.
 */
export function createLogger(service: string, level: string = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino({
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
  });
}
