export { createLogger, type Logger } from './create-logger';
export { requestLogger, REQUEST_ID_HEADER } from './request-logger';
export { redactUrl, redactHeaders, scrubSecrets, REDACTED } from './redact';
export { logProcessWarnings } from './process-warnings';
