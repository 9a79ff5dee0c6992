import type { ServiceOptions } from './run-service';

/** The listen variables every app's configuration declares (docs/architecture.md "Ports and environment"). */
export interface ListenEnvironment {
  HOST: string;
  PORT: number;
  METRICS_PORT?: number | undefined;
}

/** `runService`'s address options from an app's configuration, mapped here once rather than in every `main.ts`. */
export function listenOn(config: ListenEnvironment): Pick<ServiceOptions, 'host' | 'port' | 'metricsPort'> {
  return { host: config.HOST, port: config.PORT, metricsPort: config.METRICS_PORT };
}
