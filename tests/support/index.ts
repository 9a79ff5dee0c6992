export { stackEnv, type StackEnv } from './stack-env';
export { startApp, type RunningApp, type StartAppOptions } from './start-app';
export { uniqueName } from './unique-name';
export { freePort } from './free-port';
export { eventually, untilClock, inOneWindow, type OneWindowOptions } from './eventually';
export { withProfiler, type ProfiledDatabase } from './mongo-profiler';
export { parseMetrics, scrapeMetrics, sumOf, type MetricSample } from './prometheus';
export {
  createTrafficMix,
  deliveryReport,
  summarize,
  weightedSequence,
  DEFAULT_WEIGHTS,
  OPERATIONS,
  INTERFACE_OF,
  type TrafficMix,
  type TrafficMixOptions,
  type Operation,
  type Interface,
  type Outcome,
  type RequestRecord,
  type Ledgers,
  type WriteAttempt,
  type SubscriberLedger,
  type SubscriberSession,
  type GenerationLedger,
  type MixSummary,
  type OperationSummary,
  type DeliveryReport,
} from './traffic-mix';
export { postSnapshot, SNAPSHOT_AUTHOR } from './content-snapshots';
export { appConfigShape } from './app-config-shape';
export { generatedFilesOutcome } from './generated-files';
