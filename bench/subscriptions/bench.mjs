// bench/subscriptions: N graphql-ws subscribers split over two gateway replicas, a mutation every
// INTERVAL ms for DURATION s; delivery latency from the mutation's HTTP response to each
// subscriber's receipt (p50, p99), lost and duplicated deliveries. Beside it, in the same run, the
// same subscribers and mutations against a single-process Apollo + in-memory PubSub server (the
// floor). The mutations are sent from a thread of their own (driver.mjs; `--driver inline`: from the
// subscribers' thread, as before 2026-11-25's session 30). Usage (after `npm run build`, stack up):
//   node bench/subscriptions/bench.mjs [--subscribers 1000] [--duration 30] [--interval 10] [--warmup 10] [--driver thread|inline] [--linger <OUTBOX_LINGER_MS>]
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { parseArgs } from 'node:util';
import { Kafka, logLevel } from 'kafkajs';
import {
  account,
  counterValues,
  cpuMs,
  freePort,
  percentile,
  requestDurations,
  root,
  stackEnv,
  stackPids,
  startPlatform,
  startProcess,
} from './platform.mjs';
import { drive, mutation } from './mutations.mjs';
import { openSubscriber } from './subscribers.mjs';

const { values } = parseArgs({
  options: {
    subscribers: { type: 'string', default: '1000' },
    duration: { type: 'string', default: '30' },
    interval: { type: 'string', default: '10' },
    grace: { type: 'string', default: '30' },
    // seconds of unmeasured mutations at the same rate, straight before the measured ones
    warmup: { type: 'string', default: '10' },
    'max-in-flight': { type: 'string', default: '64' },
    // lean | graphql-ws (subscribers.mjs): the same protocol; lean leaves the CPU to the servers.
    client: { type: 'string', default: 'lean' },
    // thread | inline: the mutations are sent from a thread of their own (driver.mjs), or from the subscribers' thread.
    driver: { type: 'string', default: 'thread' },
    // content's OUTBOX_LINGER_MS (its default when not given).
    linger: { type: 'string' },
  },
});
const SUBSCRIBERS = Number(values.subscribers);
const DURATION_MS = Number(values.duration) * 1000;
const INTERVAL_MS = Number(values.interval);
const GRACE_MS = Number(values.grace) * 1000;
const MAX_IN_FLIGHT = Number(values['max-in-flight']);
const MUTATIONS = Math.floor(DURATION_MS / INTERVAL_MS);
const WARMUP_MUTATIONS = Math.floor((Number(values.warmup) * 1000) / INTERVAL_MS);
const CLIENT = values.client;
if (CLIENT !== 'lean' && CLIENT !== 'graphql-ws') throw new Error('--client is lean or graphql-ws');
const DRIVER = values.driver;
if (DRIVER !== 'thread' && DRIVER !== 'inline') throw new Error('--driver is thread or inline');
const QUERY = 'subscription { onPostCreated { id title author { name } } }';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Absolute milliseconds, comparable across threads (the driver's times are taken the same way). */
const now = () => performance.timeOrigin + performance.now();

/**
 * Sends the scenario's mutations on their schedule, from the driver thread or from this one, after the
 * warm-up's at the same rate; `onMeasuring` runs when the first measured one is due.
 */
function sendMutations(target, onMeasuring) {
  const schedule = {
    count: MUTATIONS,
    intervalMs: INTERVAL_MS,
    maxInFlight: MAX_IN_FLIGHT,
    warmupCount: WARMUP_MUTATIONS,
  };
  if (DRIVER === 'thread') {
    return new Promise((resolve, reject) => {
      const worker = new Worker(new URL('./driver.mjs', import.meta.url), { workerData: { target, schedule } });
      worker.on('message', (message) => (message.measuring ? onMeasuring() : resolve(message.results)));
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`the mutation driver exited (${code}) without its results`)));
    });
  }
  return drive(mutation(target), schedule, onMeasuring);
}

async function scenario(name, { wsUrls, connectionParams, target, pids }) {
  const mutate = mutation(target);
  const received = new Float64Array(SUBSCRIBERS * MUTATIONS).fill(-1);
  // Wall-clock receipt times, to compare with the CloudEvent and Kafka timestamps (where the time goes).
  const receivedWall = new Float64Array(SUBSCRIBERS * MUTATIONS).fill(-1);
  const counts = new Uint16Array(SUBSCRIBERS * MUTATIONS);
  const warmed = new Uint8Array(SUBSCRIBERS);
  const clients = [];
  let subscriptionErrors = 0;
  for (let s = 0; s < SUBSCRIBERS; s += 1) {
    const onTitle = (title) => {
      const at = now();
      if (title.startsWith('warm')) {
        warmed[s] = 1;
        return;
      }
      const i = Number(title.slice(2));
      if (!title.startsWith('m-') || !Number.isInteger(i) || i < 0 || i >= MUTATIONS) return;
      const slot = s * MUTATIONS + i;
      counts[slot] += 1;
      if (counts[slot] === 1) {
        received[slot] = at;
        receivedWall[slot] = Date.now();
      }
    };
    clients.push(
      openSubscriber(CLIENT, {
        url: wsUrls[s % wsUrls.length],
        connectionParams,
        query: QUERY,
        onTitle,
        onError: () => (subscriptionErrors += 1),
      }),
    );
    if (s % 100 === 99) await sleep(20); // connect in waves
  }
  // Subscriptions register asynchronously: warm up until every subscriber has received one.
  const warmDeadline = Date.now() + 120_000;
  let w = 0;
  while (warmed.reduce((a, b) => a + b, 0) < SUBSCRIBERS) {
    if (Date.now() > warmDeadline)
      throw new Error(`${name}: only ${warmed.reduce((a, b) => a + b, 0)} of ${SUBSCRIBERS} subscribers live`);
    await mutate(`warm-${w++}`).catch(() => undefined);
    await sleep(300);
  }

  // The subscribers' thread's own event-loop delay while the measured mutations go: how late it reads what arrives.
  const readerDelay = monitorEventLoopDelay({ resolution: 10 });
  // The CPU every process spends from the first measured mutation until the last delivery (or the grace's end).
  let cpuBefore;
  let cpuStarted;
  const { sent, responded, skipped, warmupSkipped, failed, started, finished, loopDelayP50, loopDelayP99 } =
    await sendMutations(target, () => {
      readerDelay.enable();
      cpuBefore = cpuMs(pids);
      cpuStarted = performance.now();
    });
  readerDelay.disable();
  const sentFor = (finished - started) / 1000;
  const succeeded = responded.reduce((n, t) => n + (t >= 0 ? 1 : 0), 0);
  const expected = succeeded * SUBSCRIBERS;
  const deliveredCount = () => {
    let n = 0;
    for (let i = 0; i < MUTATIONS; i += 1)
      if (responded[i] >= 0) for (let s = 0; s < SUBSCRIBERS; s += 1) if (counts[s * MUTATIONS + i] > 0) n += 1;
    return n;
  };
  const graceDeadline = Date.now() + GRACE_MS;
  while (Date.now() < graceDeadline && deliveredCount() < expected) await sleep(250);
  const cpuAfter = cpuMs(pids);
  const cpuWindowMs = performance.now() - cpuStarted;
  const cpuPerMutation = Object.fromEntries(
    Object.keys(pids).map((k) => [k, (cpuAfter[k] - cpuBefore[k]) / Math.max(1, succeeded)]),
  );
  const cpuBusy = Object.keys(pids).reduce((n, k) => n + cpuAfter[k] - cpuBefore[k], 0) / cpuWindowMs;

  const latencies = [];
  const fromSend = [];
  let duplicates = 0;
  let lost = 0;
  for (let i = 0; i < MUTATIONS; i += 1) {
    if (responded[i] < 0) continue;
    for (let s = 0; s < SUBSCRIBERS; s += 1) {
      const slot = s * MUTATIONS + i;
      if (counts[slot] === 0) lost += 1;
      else {
        duplicates += counts[slot] - 1;
        latencies.push(received[slot] - responded[i]);
        fromSend.push(received[slot] - sent[i]);
      }
    }
  }
  latencies.sort((a, b) => a - b);
  fromSend.sort((a, b) => a - b);
  // The mutation's own round trip (request sent → HTTP response): when it grows, the write path is
  // queueing, and past MAX_IN_FLIGHT outstanding mutations the driver skips ticks.
  const responseTimes = [];
  for (let i = 0; i < MUTATIONS; i += 1) if (responded[i] >= 0) responseTimes.push(responded[i] - sent[i]);
  responseTimes.sort((a, b) => a - b);
  for (const dispose of clients) await dispose();
  // When in the run the skipped ticks fell: per 5 s of the schedule.
  const skippedBySpan = new Array(Math.ceil(DURATION_MS / 5000)).fill(0);
  for (let i = 0; i < MUTATIONS; i += 1) if (sent[i] < 0) skippedBySpan[Math.floor((i * INTERVAL_MS) / 5000)] += 1;
  return {
    skippedBySpan,
    warmupSkipped,
    name,
    mutations: succeeded,
    failed,
    skipped,
    rate: succeeded / sentFor,
    deliveries: latencies.length,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    sendP50: percentile(fromSend, 50),
    sendP99: percentile(fromSend, 99),
    mutationP50: percentile(responseTimes, 50),
    mutationP99: percentile(responseTimes, 99),
    lost,
    duplicates,
    subscriptionErrors,
    loopDelayP50,
    loopDelayP99,
    readerDelayP50: readerDelay.percentile(50) / 1e6,
    readerDelayP99: readerDelay.percentile(99) / 1e6,
    receivedWall,
    responded,
    cpuPerMutation,
    cpuBusy,
    cpuWindowMs,
  };
}

/**
 * Where our time goes, per mutation (medians over mutations): the CloudEvent's `time` (stamped by
 * content when it builds the write) to the Kafka record's timestamp (set by the relay's producer when
 * it sends: transaction commit + relay wake-up + produce), that timestamp to this process's Kafka
 * consumer receiving it (broker + fetch), and that receipt to the median subscriber's receipt
 * (gateway consumer + filter + graphql-ws fan-out over two replicas).
 */
async function watchTopic(topic) {
  const kafka = new Kafka({ clientId: 'bench-split', brokers: stackEnvBrokers(), logLevel: logLevel.NOTHING });
  const consumer = kafka.consumer({ groupId: `bench-split-${Date.now()}` });
  const seen = new Map();
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ message }) => {
      const consumedAt = Date.now();
      const event = JSON.parse(message.value.toString());
      const title = event.data?.title ?? '';
      if (!title.startsWith('m-')) return;
      seen.set(Number(title.slice(2)), {
        eventTime: Date.parse(event.time),
        kafkaTime: Number(message.timestamp),
        consumedAt,
      });
    },
  });
  return { seen, stop: () => consumer.disconnect() };
}

function stackEnvBrokers() {
  return stackEnv().KAFKA_BROKERS.split(',');
}

function split(result, seen) {
  const outbox = [];
  const kafka = [];
  const fanout = [];
  for (let i = 0; i < MUTATIONS; i += 1) {
    const at = seen.get(i);
    if (!at || result.responded[i] < 0) continue;
    outbox.push(at.kafkaTime - at.eventTime);
    kafka.push(at.consumedAt - at.kafkaTime);
    const receipts = [];
    for (let s = 0; s < SUBSCRIBERS; s += 1)
      if (result.receivedWall[s * MUTATIONS + i] >= 0)
        receipts.push(result.receivedWall[s * MUTATIONS + i] - at.consumedAt);
    receipts.sort((a, b) => a - b);
    if (receipts.length) fanout.push(percentile(receipts, 50));
  }
  for (const list of [outbox, kafka, fanout]) list.sort((a, b) => a - b);
  const f = (list) => `p50 ${percentile(list, 50).toFixed(1)} ms p99 ${percentile(list, 99).toFixed(1)} ms`;
  console.log(
    `where the time goes (${outbox.length} mutations, wall clock): write → Kafka record (outbox) ${f(outbox)} | Kafka record → a consumer ${f(kafka)} | consumer → median subscriber (fan-out) ${f(fanout)}`,
  );
}

function print(r) {
  const cpu = Object.entries(r.cpuPerMutation);
  console.log(
    `${r.name}: CPU per mutation (first mutation to last delivery, ${(r.cpuWindowMs / 1000).toFixed(1)} s): ` +
      `${cpu.map(([k, v]) => `${k} ${v.toFixed(2)} ms`).join(', ')}; total ${cpu.reduce((n, [, v]) => n + v, 0).toFixed(2)} ms; ` +
      `cores busy on average ${r.cpuBusy.toFixed(2)} of ${os.availableParallelism()}`,
  );
  console.log(
    `${r.name.padEnd(34)} mutations ${r.mutations} (${r.rate.toFixed(1)}/s, ${r.failed} failed, ${r.skipped} skipped; response p50 ${r.mutationP50.toFixed(1)} ms p99 ${r.mutationP99.toFixed(1)} ms)  deliveries ${r.deliveries}  ` +
      `from response: p50 ${r.p50.toFixed(1)} ms p99 ${r.p99.toFixed(1)} ms  from request sent: p50 ${r.sendP50.toFixed(1)} ms p99 ${r.sendP99.toFixed(1)} ms  lost ${r.lost}  duplicated ${r.duplicates}  subscription errors ${r.subscriptionErrors}  ` +
      `skipped per 5 s [${r.skippedBySpan.join(' ')}], in the warm-up ${r.warmupSkipped} of ${WARMUP_MUTATIONS}  (event-loop delay while sending, driver (${DRIVER}): p50 ${r.loopDelayP50.toFixed(1)} ms p99 ${r.loopDelayP99.toFixed(1)} ms; subscribers: p50 ${r.readerDelayP50.toFixed(1)} ms p99 ${r.readerDelayP99.toFixed(1)} ms)`,
  );
}

console.log(
  `subscribers ${SUBSCRIBERS} (${CLIENT} client), a mutation every ${INTERVAL_MS} ms for ${DURATION_MS / 1000} s (${MUTATIONS} mutations), ` +
    `after ${WARMUP_MUTATIONS} unmeasured at the same rate`,
);

// Floor: Apollo + in-memory PubSub, one process.
const floorPort = await freePort();
const floor = await startProcess('apollo-floor', path.join(root, 'bench/subscriptions/apollo-floor.mjs'), {
  PORT: String(floorPort),
});
let floorResult;
try {
  floorResult = await scenario('apollo + in-memory PubSub (floor)', {
    wsUrls: [`ws://127.0.0.1:${floorPort}/graphql`],
    connectionParams: {},
    target: { kind: 'floor', url: floor.url },
    pids: { floor: floor.child.pid, bench: process.pid },
  });
} finally {
  await floor.stop();
}
print(floorResult);

// Ours: two gateway replicas, content (REST create → outbox → Kafka), auth.
const platform = await startPlatform({
  gateways: 2,
  metrics: true,
  contentEnv: values.linger === undefined ? {} : { OUTBOX_LINGER_MS: values.linger },
});
let ours;
let durations;
let coalescing;
const watched = await watchTopic(`${platform.topicPrefix}content.posts`);
try {
  const [a, b] = platform.gateways;
  const token = await account(a.url);
  ours = await scenario('platform: 2 gateway replicas', {
    wsUrls: [a.url, b.url].map((u) => `${u.replace('http', 'ws')}/graphql`),
    connectionParams: { authorization: `Bearer ${token}` },
    target: { kind: 'platform', urls: [a.url, b.url], token },
    pids: {
      'gateway 1': a.child.pid,
      'gateway 2': b.child.pid,
      content: platform.content.child.pid,
      auth: platform.auth.child.pid,
      ...stackPids(),
      bench: process.pid,
    },
  });
  // Where a mutation's response time goes: each gateway's whole request, and content's part of it.
  durations = [
    ...(await Promise.all(
      platform.gateways.map(async (g, i) => [
        `gateway ${i + 1}`,
        await requestDurations(g.metricsUrl, 'POST', '/api/v1'),
      ]),
    )),
    ['content', await requestDurations(platform.content.metricsUrl, 'POST', '/api/v1/posts')],
  ];
  // How many graphql-ws messages each socket write carried, over the whole run (the warm-ups included).
  coalescing = await Promise.all(
    platform.gateways.map(async (g) => {
      const [writes, messages] = await counterValues(g.metricsUrl, [
        'graphql_ws_socket_writes_total',
        'graphql_ws_messages_sent_total',
      ]);
      return { writes, messages };
    }),
  );
} finally {
  await watched.stop();
  await platform.stop();
}
print(ours);
console.log(
  'its POST /api/v1/posts, server side: ' +
    durations
      .map(
        ([name, d]) =>
          `${name} ${d.count} requests, mean ${d.meanMs.toFixed(1)} ms (p50 ≤ ${d.p50UnderMs} ms, p99 ≤ ${d.p99UnderMs} ms)`,
      )
      .join(' | '),
);
console.log(
  'socket writes to subscribers: ' +
    coalescing
      .map(
        (c, i) =>
          `gateway ${i + 1} ${c.writes} writes of ${c.messages} messages (${(c.messages / c.writes).toFixed(2)} per write, ${(c.writes / (SUBSCRIBERS / 2) / ((DURATION_MS + WARMUP_MUTATIONS * INTERVAL_MS) / 1000)).toFixed(1)} per socket per second)`,
      )
      .join(' | '),
);
split(ours, watched.seen);
// The floor publishes inside the mutation resolver, so its deliveries can precede the HTTP response
// (negative latency from the response); the ratio is therefore taken on latency from the request.
console.log(
  `ratio (ours / floor), latency from request sent: p50 ${(ours.sendP50 / floorResult.sendP50).toFixed(2)}x, p99 ${(ours.sendP99 / floorResult.sendP99).toFixed(2)}x`,
);
console.log(
  `ours minus floor, latency from response: p50 +${(ours.p50 - floorResult.p50).toFixed(1)} ms, p99 +${(ours.p99 - floorResult.p99).toFixed(1)} ms`,
);
process.exit(ours.lost === 0 && ours.duplicates === 0 ? 0 : 1);
