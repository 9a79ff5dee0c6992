import { cacheCompiledCode, traceService } from '@platform/tracing';

// main.ts imports this module first: the HTTP and express instrumentations must be in place before
// anything loads those modules (libs/tracing/src/trace-service.ts). Off unless OTEL_* asks for it.
cacheCompiledCode();
traceService('content');
