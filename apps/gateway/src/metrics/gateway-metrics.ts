import type { WebSocket, WebSocketServer } from 'ws';
import type { Logger } from '@platform/logger';
import { Counter, Gauge, Histogram, metricsRegistry } from '@platform/metrics';
import { withTimeout } from '@platform/service';

/**
 * The gateway's own Prometheus metrics, on the process registry that METRICS_PORT serves. Names and
 * labels are the contract of docs/operations.md "Metrics" (the dashboards and alert rules read them).
 */

/** How the audio reached its client: a whole file, a chunked `/stream` response, a WebSocket. */
export type AudioTransport = 'rest' | 'stream' | 'websocket';
export type WebSocketEndpoint = 'speech_stream_input' | 'speech_multi_context' | 'graphql';

const registers = [metricsRegistry];
/** A scrape waits this long for Redis or Kafka at most; the series are left out rather than the scrape failing. */
export const READ_TIMEOUT_MS = 2_000;

const timeToFirstAudio = new Histogram({
  name: 'synthesis_time_to_first_audio_seconds',
  help: 'Time from a generation being asked for to its first audio bytes handed to the client',
  labelNames: ['model', 'transport'],
  buckets: [0.025, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2.5, 5, 10],
  registers,
});

const webSocketConnections = new Gauge({
  name: 'websocket_connections',
  help: 'Open WebSocket connections, by endpoint',
  labelNames: ['endpoint'],
  registers,
});

const rateLimitRefusals = new Counter({
  name: 'rate_limit_refusals_total',
  help: "Requests refused with 429 for their plan's rate (requests per second) or concurrency limit",
  labelNames: ['plan', 'reason'],
  registers,
});

const graphqlWsWrites = new Counter({
  name: 'graphql_ws_socket_writes_total',
  help: 'Socket writes to graphql-ws subscribers (each carries every message the socket had pending)',
  registers,
});

const graphqlWsMessages = new Counter({
  name: 'graphql_ws_messages_sent_total',
  help: 'graphql-ws messages written to subscribers (events and protocol messages)',
  registers,
});

/** One socket write of `messages` graphql-ws messages: the ratio of the two counters is how well writes are coalesced. */
export function countGraphqlWsWrite(messages: number): void {
  graphqlWsWrites.inc();
  graphqlWsMessages.inc(messages);
}

export function recordFirstAudio(model: string, transport: AudioTransport, seconds: number): void {
  timeToFirstAudio.observe({ model, transport }, Math.max(0, seconds));
}

export function recordLimitRefusal(plan: string, reason: 'rate' | 'concurrency'): void {
  rateLimitRefusals.inc({ plan, reason });
}

/** Shows an endpoint's series at 0 before its first connection. */
export function declareEndpoint(endpoint: WebSocketEndpoint): void {
  webSocketConnections.inc({ endpoint }, 0);
}

/** Counts one accepted WebSocket connection until it closes. */
export function countConnection(ws: WebSocket, endpoint: WebSocketEndpoint): void {
  webSocketConnections.inc({ endpoint });
  ws.once('close', () => webSocketConnections.dec({ endpoint }));
}

/** Counts the connections a WebSocket server announces (its `connection` event) while they stay open. */
export function countConnections(wss: WebSocketServer, endpoint: WebSocketEndpoint): void {
  declareEndpoint(endpoint);
  wss.on('connection', (ws) => countConnection(ws, endpoint));
}

/** `graphql_subscriptions_active`: the subscriptions the hub holds, read on each scrape. */
export function watchSubscriptions(active: () => number): void {
  new Gauge({
    name: 'graphql_subscriptions_active',
    help: 'GraphQL subscriptions this replica is serving (over graphql-ws)',
    registers,
    collect() {
      this.set(active());
    },
  });
}

/** `kafka_consumer_lag_messages{topic,partition}`: the content feed's lag, read from Kafka on each scrape (bounded). */
export function watchConsumerLag(
  lag: () => Promise<{ topic: string; partition: number; lag: number }[]>,
  logger: Logger,
): void {
  new Gauge({
    name: 'kafka_consumer_lag_messages',
    help: "Messages on each content topic partition this replica's subscription feed has not consumed yet",
    labelNames: ['topic', 'partition'],
    registers,
    async collect() {
      try {
        const partitions = await withTimeout(lag(), READ_TIMEOUT_MS, 'kafka offsets');
        this.reset();
        for (const p of partitions) this.set({ topic: p.topic, partition: String(p.partition) }, p.lag);
      } catch (err) {
        // Left out rather than stale: an alert on the lag then sees no data instead of an old value.
        this.reset();
        logger.warn(
          { err: err instanceof Error ? err.message : String(err) },
          'kafka consumer lag unavailable for metrics',
        );
      }
    },
  });
}
