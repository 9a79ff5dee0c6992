import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { ExpressInstrumentation, ExpressLayerType } from '@opentelemetry/instrumentation-express';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, ConsoleSpanExporter, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { TracingSettings } from './tracing-settings';

/**
 * The OpenTelemetry SDK, loaded only when tracing is on (trace-service.ts). The exporter, the batch
 * processor and the sampler read their standard variables themselves (OTEL_EXPORTER_OTLP_*, OTEL_BSP_*,
 * OTEL_TRACES_SAMPLER*); `register` installs the W3C Trace Context and Baggage propagators and the
 * AsyncLocalStorage context manager. OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES override the
 * service name given here.
 */
export function startTracing(serviceName: string, settings: Extract<TracingSettings, { enabled: true }>): void {
  const resource = defaultResource()
    .merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: serviceName }))
    .merge(detectResources({ detectors: [envDetector] }));
  const exporter = settings.exporter === 'console' ? new ConsoleSpanExporter() : new OTLPTraceExporter();
  const provider = new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(exporter)] });
  provider.register();
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      // Health probes every few seconds would bury the requests worth looking at.
      new HttpInstrumentation({ ignoreIncomingRequestHook: (req) => /^\/(healthz|readyz)(\?|$)/.test(req.url ?? '') }),
      // Route handlers only: every request passes through a dozen routers and middlewares (health,
      // documents, parsers), and a span for each would bury the one that did the work. The server
      // span still gets its route template (http.route) from the express instrumentation.
      new ExpressInstrumentation({ ignoreLayersType: [ExpressLayerType.MIDDLEWARE, ExpressLayerType.ROUTER] }),
      // undici (and fetch): the gateway's calls to content and auth carry the request's traceparent.
      new UndiciInstrumentation(),
    ],
  });
}
