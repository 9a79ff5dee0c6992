import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import WebSocket from 'ws';
import { freePort, scrapeMetrics, stackEnv, sumOf, type MetricSample } from '@platform/testing';
import { createApiKey, eventually, registerAccount, startPlatform, type Platform } from './platform';

/**
 * Prometheus metrics of the four apps on their internal listeners (METRICS_PORT), after a small
 * tour through the public gateway: a speech request, a GraphQL request, a graphql-ws connection, a
 * burst over the plan's rate limit and an OAuth token error. The public port never serves them.
 */
const RACHEL = '21m00Tcm4TlvDq8ikWAM';
const TEXT = 'Metrics, counted once.';
const MODEL = 'espeak_ng_v1';
let platform: Platform;
const metricsUrl = { gateway: '', auth: '', content: '', worker: '' };

const find = (samples: MetricSample[], name: string, labels: Record<string, string> = {}) =>
  samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));

beforeAll(async () => {
  const ports = {
    gateway: await freePort(),
    auth: await freePort(),
    content: await freePort(),
    worker: await freePort(),
  };
  for (const app of Object.keys(ports) as (keyof typeof ports)[]) metricsUrl[app] = `http://127.0.0.1:${ports[app]}`;
  platform = await startPlatform({
    speechWorkers: { env: { METRICS_PORT: String(ports.worker) } },
    // Room for the tour (one request at a time), and limits the bursts below go over. Anonymous callers
    // (registering the tests' accounts, signing them in, graphql-ws) share one budget per client IP, which
    // would otherwise take the free plan's numbers: 5 per second is spent by a few registrations, and a
    // spent IP budget refuses even a valid key's stream-input session (1013) or a registration (429).
    gatewayEnv: {
      METRICS_PORT: String(ports.gateway),
      PLAN_LIMITS_JSON: JSON.stringify({
        free: { rps: 5, concurrency: 2 },
        anonymous: { rps: 1000, concurrency: 100 },
      }),
    },
    authEnv: { METRICS_PORT: String(ports.auth) },
    contentEnv: { METRICS_PORT: String(ports.content) },
  });
}, 180_000);

afterAll(async () => {
  await platform?.stop();
}, 30_000);

describe("the apps' Prometheus metrics after a tour", () => {
  it('count the requests by route template, the synthesis job, the connections and the refusals', async () => {
    const gateway = platform.publicUrl;
    const workerBefore = await scrapeMetrics(metricsUrl.worker);
    const gatewayBefore = await scrapeMetrics(metricsUrl.gateway);

    // A speech request (whole file) with an account's API key.
    const speaker = await registerAccount(gateway, 'Metrics Speaker');
    const { key } = await createApiKey(platform.auth.url, speaker.id);
    const tts = await fetch(`${gateway}/v1/text-to-speech/${RACHEL}?output_format=mp3_44100_128`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'xi-api-key': key },
      body: JSON.stringify({ text: TEXT, model_id: MODEL }),
    });
    expect(tts.status).toBe(200);
    expect((await tts.arrayBuffer()).byteLength).toBeGreaterThan(0);
    const streamed = await fetch(`${gateway}/v1/text-to-speech/${RACHEL}/stream?output_format=mp3_44100_128`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'xi-api-key': key },
      body: JSON.stringify({ text: TEXT, model_id: MODEL }),
    });
    expect(streamed.status).toBe(200);
    expect((await streamed.arrayBuffer()).byteLength).toBeGreaterThan(0);

    // A GraphQL request through the gateway to content.
    const graphql = await fetch(`${gateway}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"query":"{__typename}"}',
    });
    expect(graphql.status).toBe(200);
    await graphql.arrayBuffer();

    // An OAuth error at auth's /token (its fast lane, outside express).
    const token = await fetch(`${platform.auth.url}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=password',
    });
    expect(token.status).toBe(400);
    await token.arrayBuffer();

    // A burst over the free plan's 5 requests per second, from another account.
    const bursty = await registerAccount(gateway, 'Metrics Burst');
    const burstKey = (await createApiKey(platform.auth.url, bursty.id)).key;
    const burst = await Promise.all(
      Array.from({ length: 30 }, async () => {
        const res = await fetch(`${gateway}/v1/models`, { headers: { 'xi-api-key': burstKey } });
        await res.arrayBuffer();
        return res.status;
      }),
    );
    const refused = burst.filter((status) => status === 429).length;
    expect(refused).toBeGreaterThan(0);

    // The gateway.
    const g = await scrapeMetrics(metricsUrl.gateway);
    expect(
      sumOf(g, 'http_server_request_duration_seconds_count', {
        route: '/v1/text-to-speech/:voice_id',
        method: 'POST',
        status_code: '200',
      }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      sumOf(g, 'http_server_request_duration_seconds_count', { route: '/graphql', method: 'POST', status_code: '200' }),
    ).toBeGreaterThanOrEqual(1);
    // Refused by the limiter ahead of any route: the speech router's mount path names them.
    expect(
      sumOf(g, 'http_server_request_duration_seconds_count', { route: '/v1', method: 'GET', status_code: '429' }),
    ).toBe(refused);
    expect(
      sumOf(g, 'http_server_request_duration_seconds_count', {
        route: '/v1/models',
        method: 'GET',
        status_code: '200',
      }),
    ).toBe(burst.length - refused);
    // Route templates only: no request's voice id or key in any label.
    expect(g.some((s) => Object.values(s.labels).some((v) => v.includes(RACHEL) || v.includes(burstKey)))).toBe(false);
    for (const transport of ['rest', 'stream']) {
      const firstAudio = { transport, model: MODEL };
      expect(
        sumOf(g, 'synthesis_time_to_first_audio_seconds_count', firstAudio) -
          sumOf(gatewayBefore, 'synthesis_time_to_first_audio_seconds_count', firstAudio),
      ).toBe(1);
    }
    expect(
      sumOf(g, 'rate_limit_refusals_total', { plan: 'free' }) -
        sumOf(gatewayBefore, 'rate_limit_refusals_total', { plan: 'free' }),
    ).toBe(refused);
    const queue = find(g, 'synthesis_queue_jobs', { queue: platform.speech.queue });
    expect(new Set(queue.map((s) => s.labels.state))).toEqual(
      new Set(['waiting', 'prioritized', 'active', 'delayed', 'failed']),
    );
    expect(queue.every((s) => Number.isInteger(s.value) && s.value >= 0)).toBe(true);
    const lag = find(g, 'kafka_consumer_lag_messages');
    expect(lag.length).toBeGreaterThan(0);
    expect(lag.every((s) => s.labels.topic!.startsWith(platform.topicPrefix) && s.value >= 0)).toBe(true);
    expect(find(g, 'graphql_subscriptions_active')).toEqual([expect.objectContaining({ value: 0 })]);

    // The synthesis worker: the job, its characters and its wait.
    const w = await scrapeMetrics(metricsUrl.worker);
    const completed = { model: MODEL, outcome: 'completed' };
    expect(sumOf(w, 'synthesis_jobs_total', completed) - sumOf(workerBefore, 'synthesis_jobs_total', completed)).toBe(
      2,
    );
    expect(
      sumOf(w, 'synthesis_characters_total', { model: MODEL }) -
        sumOf(workerBefore, 'synthesis_characters_total', { model: MODEL }),
    ).toBe(2 * [...TEXT].length);
    expect(sumOf(w, 'synthesis_job_wait_seconds_count', { queue: platform.speech.queue })).toBeGreaterThanOrEqual(1);
    expect(sumOf(w, 'synthesis_job_run_seconds_count', { outcome: 'completed' })).toBeGreaterThanOrEqual(1);
    expect(sumOf(w, 'synthesis_engine_real_time_factor_count')).toBeGreaterThanOrEqual(1);

    // content answered the GraphQL request; auth the token error (fast lane) under their routes.
    const c = await scrapeMetrics(metricsUrl.content);
    expect(
      sumOf(c, 'http_server_request_duration_seconds_count', { route: '/graphql', method: 'POST', status_code: '200' }),
    ).toBeGreaterThanOrEqual(1);
    const a = await scrapeMetrics(metricsUrl.auth);
    expect(
      sumOf(a, 'http_server_request_duration_seconds_count', { route: '/token', method: 'POST', status_code: '400' }),
    ).toBe(1);

    // Every app: the process and Node.js runtime metrics.
    for (const samples of [g, w, c, a]) {
      expect(find(samples, 'nodejs_eventloop_lag_seconds').length).toBe(1);
      expect(sumOf(samples, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
      expect(sumOf(samples, 'process_start_time_seconds')).toBeGreaterThan(0);
    }
  }, 120_000);

  it("read the synthesis queue's jobs from Redis on each scrape", async () => {
    const delayed = () =>
      scrapeMetrics(metricsUrl.gateway).then((s) =>
        sumOf(s, 'synthesis_queue_jobs', { queue: platform.speech.queue, state: 'delayed', priority: 'any' }),
      );
    expect(await delayed()).toBe(0);
    // A job no worker takes for an hour, added straight to the gateway's queue.
    const connection = new Redis(stackEnv().REDIS_URL, { maxRetriesPerRequest: null });
    const queue = new Queue(platform.speech.queue, { connection });
    try {
      const job = await queue.add('metrics-probe', {}, { delay: 3_600_000 });
      await eventually(async () => (await delayed()) === 1, 10_000);
      await job.remove();
      await eventually(async () => (await delayed()) === 0, 10_000);
    } finally {
      await queue.close();
      connection.disconnect();
    }
  }, 60_000);

  it('count open graphql-ws connections while they are open, and the messages written to them', async () => {
    const open = () =>
      scrapeMetrics(metricsUrl.gateway).then((s) => sumOf(s, 'websocket_connections', { endpoint: 'graphql' }));
    const written = async () => {
      const samples = await scrapeMetrics(metricsUrl.gateway);
      return {
        writes: sumOf(samples, 'graphql_ws_socket_writes_total'),
        messages: sumOf(samples, 'graphql_ws_messages_sent_total'),
      };
    };
    expect(await open()).toBe(0);
    const before = await written();
    const socket = new WebSocket(`${platform.publicUrl.replace('http', 'ws')}/graphql`, 'graphql-transport-ws');
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    await eventually(async () => (await open()) === 1, 10_000);
    // An anonymous connection_init: the gateway's one message back, connection_ack, is one write of one message.
    const ack = new Promise<string>((resolve) => socket.once('message', (data) => resolve(String(data))));
    socket.send(JSON.stringify({ type: 'connection_init' }));
    expect(JSON.parse(await ack)).toEqual({ type: 'connection_ack' });
    const after = await written();
    expect({ writes: after.writes - before.writes, messages: after.messages - before.messages }).toEqual({
      writes: 1,
      messages: 1,
    });
    socket.close();
    await eventually(async () => (await open()) === 0, 10_000);
  }, 60_000);

  it('count open stream-input connections and the time to first audio of their generations', async () => {
    const speaker = await registerAccount(platform.publicUrl, 'Metrics Streamer');
    const { key } = await createApiKey(platform.auth.url, speaker.id);
    const connections = (samples: MetricSample[]) =>
      sumOf(samples, 'websocket_connections', { endpoint: 'speech_stream_input' });
    const firstAudio = (samples: MetricSample[]) =>
      sumOf(samples, 'synthesis_time_to_first_audio_seconds_count', { transport: 'websocket', model: MODEL });
    const before = await scrapeMetrics(metricsUrl.gateway);
    expect(connections(before)).toBe(0);
    const socket = new WebSocket(
      `${platform.publicUrl.replace('http', 'ws')}/v1/text-to-speech/${RACHEL}/stream-input?model_id=${MODEL}&output_format=pcm_16000`,
      {
        headers: { 'xi-api-key': key },
      },
    );
    const audio: Buffer[] = [];
    socket.on('message', (data: Buffer, isBinary: boolean) => isBinary && audio.push(data));
    const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    await eventually(async () => connections(await scrapeMetrics(metricsUrl.gateway)) === 1, 10_000);
    socket.send(JSON.stringify({ text: ' ' }));
    socket.send(JSON.stringify({ text: `${TEXT} `, flush: true }));
    socket.send(JSON.stringify({ text: '' }));
    expect(await closed).toBe(1000);
    expect(audio.length).toBeGreaterThan(0);
    await eventually(async () => connections(await scrapeMetrics(metricsUrl.gateway)) === 0, 10_000);
    expect(firstAudio(await scrapeMetrics(metricsUrl.gateway)) - firstAudio(before)).toBe(1);
  }, 60_000);

  it("count a stream-input session refused for the plan's concurrency", async () => {
    const speaker = await registerAccount(platform.publicUrl, 'Metrics Crowd');
    const { key } = await createApiKey(platform.auth.url, speaker.id);
    const refusals = async () =>
      sumOf(await scrapeMetrics(metricsUrl.gateway), 'rate_limit_refusals_total', {
        plan: 'free',
        reason: 'concurrency',
      });
    const before = await refusals();
    // Three sessions of one account on the free plan's two slots: exactly one is refused.
    const sessions = Array.from({ length: 3 }, () => {
      const socket = new WebSocket(
        `${platform.publicUrl.replace('http', 'ws')}/v1/text-to-speech/${RACHEL}/stream-input?model_id=${MODEL}`,
        { headers: { 'xi-api-key': key } },
      );
      const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
      socket.once('open', () => socket.send(JSON.stringify({ text: ' ' })));
      return { socket, closed };
    });
    const refused = await Promise.race(sessions.map((s) => s.closed));
    expect(refused).toBe(1013);
    expect((await refusals()) - before).toBe(1);
    for (const { socket } of sessions) socket.close();
    await Promise.all(sessions.map((s) => s.closed));
  }, 60_000);

  it('are never served on the public gateway port, and the metrics listener serves nothing else', async () => {
    const pub = await fetch(`${platform.publicUrl}/metrics`);
    const body = await pub.text();
    expect(pub.status).toBe(404);
    expect(body).not.toContain('# TYPE');
    const other = await fetch(`${metricsUrl.gateway}/healthz`);
    await other.arrayBuffer();
    expect(other.status).toBe(404);
  });
});
