// Starts the built auth, content and gateway apps as processes against the local stack, isolated
// (own databases, topic prefix, Redis prefixes, ports), for the gateway and subscription benchmarks.
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kafka, logLevel } from 'kafkajs';
import { MongoClient } from 'mongodb';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const INTERNAL_SECRET = 'bench-internal-secret-0123456789abcdefghij';

export function stackEnv() {
  const env = {};
  const file = path.join(root, '.stack', 'stack.env');
  if (fs.existsSync(file)) {
    for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
      const m = /^([A-Z_]+)=(.*)$/.exec(line.trim());
      if (m) env[m[1]] = m[2];
    }
  }
  for (const key of ['REDIS_URL', 'KAFKA_BROKERS', 'MONGO_URL']) {
    if (process.env[key]) env[key] = process.env[key];
    if (!env[key]) throw new Error(`${key} unknown: run "node scripts/stack.mjs up"`);
  }
  return env;
}

export const unique = (prefix) => `${prefix}_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** BENCH_CPU_PROF_DIR=<dir>: every process started here writes a V8 CPU profile (`<name>-….cpuprofile`) there when it stops. */
function profileFlags(name) {
  const dir = process.env.BENCH_CPU_PROF_DIR;
  return dir
    ? ['--cpu-prof', `--cpu-prof-dir=${dir}`, `--cpu-prof-name=${name}-${process.pid}-${Date.now()}.cpuprofile`]
    : [];
}

export async function startProcess(name, entry, env, readyPath = '/readyz') {
  const child = spawn(process.execPath, [...profileFlags(name), entry], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c) => (output += c));
  child.stderr.on('data', (c) => (output += c));
  const url = `http://127.0.0.1:${env.PORT}`;
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${name} exited:\n${output}`);
    try {
      if ((await fetch(`${url}${readyPath}`)).status === 200) break;
    } catch {
      // not yet listening
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  if (Date.now() >= deadline) {
    child.kill('SIGKILL');
    throw new Error(`${name} not ready:\n${output}`);
  }
  return {
    name,
    url,
    child,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 15_000).unref();
      }),
  };
}

const app = (name) => path.join(root, 'apps', name, 'dist', 'main.js');

/**
 * auth + content + `gateways` replicas; limits opened wide so the benchmark measures delivery, not 429s.
 * `contentEnv`: more settings for content (say, `OUTBOX_LINGER_MS`). `metrics`: content and each gateway serve
 * Prometheus metrics, at the `metricsUrl` of their process (for `requestDurations`).
 */
export async function startPlatform({ gateways = 1, contentEnv = {}, metrics = false } = {}) {
  const stack = stackEnv();
  const authPort = await freePort();
  const contentPort = await freePort();
  const gatewayPorts = [];
  for (let i = 0; i < gateways; i += 1) gatewayPorts.push(await freePort());
  const publicUrl = `http://127.0.0.1:${gatewayPorts[0]}`;
  const topicPrefix = `${unique('bench')}.`;
  const common = { ...stack, INTERNAL_SECRET, LOG_LEVEL: 'warn', PUBLIC_URL: publicUrl };
  const authUrl = `http://127.0.0.1:${authPort}`;
  const contentUrl = `http://127.0.0.1:${contentPort}`;
  const contentDb = unique('benchcontent');
  const authDb = unique('benchauth');
  const metricsPorts = [];
  if (metrics) for (let i = 0; i <= gateways; i += 1) metricsPorts.push(String(await freePort()));
  const [auth, content] = await Promise.all([
    startProcess('auth', app('auth'), { ...common, PORT: String(authPort), MONGO_DB: authDb }),
    startProcess('content', app('content'), {
      ...common,
      PORT: String(contentPort),
      MONGO_DB: contentDb,
      KAFKA_TOPIC_PREFIX: topicPrefix,
      REDIS_PREFIX: `${unique('benchc')}:`,
      AUTH_URL: authUrl,
      ...(metrics ? { METRICS_PORT: metricsPorts[gateways] } : {}),
      ...contentEnv,
    }),
  ]);
  const replicas = await Promise.all(
    gatewayPorts.map((port, i) =>
      startProcess('gateway', app('gateway'), {
        ...common,
        ...(metrics ? { METRICS_PORT: metricsPorts[i] } : {}),
        PORT: String(port),
        AUTH_URL: authUrl,
        CONTENT_URL: contentUrl,
        KAFKA_TOPIC_PREFIX: topicPrefix,
        RATE_LIMIT_PREFIX: unique('benchrl'),
        SUBSCRIBER_BUFFER: '1000',
        PLAN_LIMITS_JSON: JSON.stringify({
          free: { rps: 100000, concurrency: 10000 },
          anonymous: { rps: 100000, concurrency: 10000 },
        }),
        // The benchmark's subscribers are one account on one address, one connection each (1,000 by default).
        GRAPHQL_WS_CONNECTIONS_PER_ADDRESS: '100000',
        GRAPHQL_WS_CONNECTIONS_PER_ACCOUNT: '100000',
        SUBSCRIPTIONS_PER_ADDRESS: '100000',
        SUBSCRIPTIONS_PER_ACCOUNT: '100000',
      }),
    ),
  );
  if (metrics) [...replicas, content].forEach((p, i) => (p.metricsUrl = `http://127.0.0.1:${metricsPorts[i]}/metrics`));
  const processes = [...replicas, auth, content];
  return {
    auth,
    content,
    gateways: replicas,
    publicUrl,
    contentDb,
    topicPrefix,
    async stop() {
      await Promise.allSettled(processes.map((p) => p.stop()));
      await removeLeftovers(stack, [contentDb, authDb], topicPrefix);
    },
  };
}

/** Drops the run's databases and Kafka topics, so that runs do not pile data up in the local stack (best effort). */
async function removeLeftovers(stack, databases, topicPrefix) {
  const mongo = new MongoClient(stack.MONGO_URL);
  const admin = new Kafka({
    clientId: 'bench-cleanup',
    brokers: stack.KAFKA_BROKERS.split(','),
    logLevel: logLevel.NOTHING,
  }).admin();
  try {
    await mongo.connect();
    for (const name of databases) await mongo.db(name).dropDatabase();
    await admin.connect();
    const topics = (await admin.listTopics()).filter((topic) => topic.startsWith(topicPrefix));
    if (topics.length > 0) await admin.deleteTopics({ topics });
  } catch (err) {
    console.warn(
      `bench: could not remove this run's databases or topics: ${err instanceof Error ? err.message : String(err)}`,
    );
  } finally {
    await mongo.close().catch(() => undefined);
    await admin.disconnect().catch(() => undefined);
  }
}

/** Registers and logs in through the gateway; returns the access token. */
export async function account(gatewayUrl) {
  const email = `${randomUUID()}@example.com`;
  const password = 'bench password 123';
  const reg = await fetch(`${gatewayUrl}/api/v1/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Bench', email, password }),
  });
  if (reg.status !== 201) throw new Error(`register ${reg.status} ${await reg.text()}`);
  const login = await fetch(`${gatewayUrl}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  if (login.status !== 200) throw new Error(`login ${login.status} ${await login.text()}`);
  return (await login.json()).token;
}

export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** The values of unlabelled Prometheus counters (`names`) at a process's metrics endpoint, from one scrape. */
export async function counterValues(metricsUrl, names) {
  const lines = (await (await fetch(metricsUrl)).text()).split('\n');
  return names.map((name) => {
    const line = lines.find((l) => l.startsWith(`${name} `));
    if (!line) throw new Error(`${metricsUrl} has no ${name}`);
    return Number(line.slice(name.length + 1));
  });
}

/**
 * From a process's `http_server_request_duration_seconds` (libs/metrics): the requests of `method` on
 * `route` with a 2xx status, their mean duration, and the bucket bounds their p50 and p99 fall under (ms).
 */
export async function requestDurations(metricsUrl, method, route) {
  const text = await (await fetch(metricsUrl)).text();
  const buckets = new Map();
  let count = 0;
  let sum = 0;
  for (const line of text.split('\n')) {
    if (
      !line.startsWith('http_server_request_duration_seconds') ||
      !line.includes(`route="${route}"`) ||
      !line.includes(`method="${method}"`) ||
      !/status_code="2\d\d"/.test(line)
    )
      continue;
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    const le = /le="([^"]+)"/.exec(line)?.[1];
    if (line.startsWith('http_server_request_duration_seconds_bucket') && le)
      buckets.set(le, (buckets.get(le) ?? 0) + value);
    else if (line.startsWith('http_server_request_duration_seconds_count')) count += value;
    else if (line.startsWith('http_server_request_duration_seconds_sum')) sum += value;
  }
  const under = (q) => {
    for (const [le, n] of [...buckets].sort((a, b) => Number(a[0]) - Number(b[0])))
      if (n >= q * count) return le === '+Inf' ? Infinity : Number(le) * 1000;
    return NaN;
  };
  return { count, meanMs: count ? (sum / count) * 1000 : NaN, p50UnderMs: under(0.5), p99UnderMs: under(0.99) };
}

/** The local stack's server processes (scripts/stack.mjs), by name. */
export function stackPids() {
  const pidOf = (pattern) => Number(execFileSync('pgrep', ['-f', '-o', pattern]).toString().trim());
  return { mongod: pidOf('mongod'), kafka: pidOf('kafka.Kafka'), redis: pidOf('redis-server') };
}

/** Cumulative user + system CPU of each process (all its threads), in milliseconds, from /proc. */
export function cpuMs(pids) {
  const fields = (pid) => fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return Object.fromEntries(
    Object.entries(pids).map(([name, pid]) => {
      const f = fields(pid);
      return [name, (Number(f[11]) + Number(f[12])) * 10];
    }),
  );
}
