export { runService, type ServiceHandle, type ServiceOptions, type ReadinessCheck } from './run-service';
export { listenOn, type ListenEnvironment } from './listen-on';
export { healthRoutes } from './health-routes';
export { withTimeout } from './with-timeout';
export { exitOnBootFailure } from './exit-on-boot-failure';
export { keepIdleConnections, IDLE_CONNECTION_MS } from './idle-connections';
export { MAX_JSON_DEPTH, JSON_TOO_DEEP, jsonNestsDeeperThan, refuseDeepJson } from './json-depth';
