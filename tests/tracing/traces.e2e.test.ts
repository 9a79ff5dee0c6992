import {
  createApiKey,
  eventually,
  registerAccount,
  startPlatform,
  type Account,
  type Platform,
} from '../gateway/platform';
import { collect, wsClient } from '../gateway/subscriptions-client';
import { startOtlpReceiver, SPAN_KIND, type OtlpReceiver, type ReceivedSpan } from './otlp-receiver';

/**
 * OpenTelemetry tracing across the platform's hops, exported as OTLP/HTTP JSON to a receiver of the
 * test's own: a TTS request is one trace from the gateway through the BullMQ job into the worker;
 * a content mutation is one trace from the gateway's request through content, its outbox and Kafka
 * to the gateway's delivery to a graphql-ws subscriber. Auth runs without the OTEL_* variables: tracing is off there, and it
 * exports nothing.
 */
jest.setTimeout(180_000);

const ADAM = 'pNInz6obpgDQGcFmaJgB'; // premade

let receiver: OtlpReceiver;
let platform: Platform;
let account: Account;
let apiKey: string;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  // Exported every 100 ms rather than every 5 s, so the test waits less for its spans.
  const tracing = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_BSP_SCHEDULE_DELAY: '100' };
  platform = await startPlatform({
    gatewayEnv: { ...tracing, PLAN_LIMITS_JSON: JSON.stringify({ free: { rps: 100, concurrency: 10 } }) },
    contentEnv: tracing,
    speechWorkers: { env: { ...tracing, LOG_LEVEL: 'info' } },
  });
  account = await registerAccount(platform.publicUrl, 'Trace Tester');
  apiKey = (await createApiKey(platform.auth.url, account.id)).key;
});

afterAll(async () => {
  await platform?.stop();
  await receiver?.close();
});

function spansWhere(match: (span: ReceivedSpan) => boolean): ReceivedSpan[] {
  return receiver.spans.filter(match);
}

/** Waits for exactly one span matching `match` to have been exported, and returns it. */
async function oneSpan(description: string, match: (span: ReceivedSpan) => boolean): Promise<ReceivedSpan> {
  await eventually(() => spansWhere(match).length > 0, 30_000).catch(() => {
    throw new Error(
      `no span ${description} among ${JSON.stringify(receiver.spans.map(({ service, name, kind }) => ({ service, name, kind })))}`,
    );
  });
  const found = spansWhere(match);
  expect(found).toHaveLength(1);
  return found[0]!;
}

it("a TTS request is one trace: the gateway request, its job, and the worker span as the job span's child", async () => {
  const res = await fetch(`${platform.publicUrl}/v1/text-to-speech/${ADAM}?output_format=mp3_22050_32`, {
    method: 'POST',
    headers: { 'xi-api-key': apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ text: 'Tracing one request.', model_id: 'espeak_ng_v1' }),
  });
  expect(res.status).toBe(200);
  expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(0);

  const request = await oneSpan(
    "for the gateway's TTS request",
    (s) =>
      s.service === 'gateway' &&
      s.kind === SPAN_KIND.server &&
      String(s.attributes['http.route'] ?? s.attributes['http.target'] ?? s.name).includes('text-to-speech'),
  );
  const job = await oneSpan(
    "for the gateway's job",
    (s) => s.service === 'gateway' && s.name === 'synthesis job' && s.traceId === request.traceId,
  );
  expect(job.kind).toBe(SPAN_KIND.producer);
  const worker = await oneSpan(
    'in the worker',
    (s) =>
      s.service === 'synthesis-worker' &&
      s.name === 'synthesis job' &&
      s.attributes['synthesis.job_id'] === job.attributes['synthesis.job_id'],
  );
  expect(worker.kind).toBe(SPAN_KIND.consumer);
  expect(worker.traceId).toBe(request.traceId);
  expect(worker.parentSpanId).toBe(job.spanId);
  // The job span sits under the request (directly, or under express' handler spans of the same trace).
  const ancestors = new Set<string>();
  for (
    let at: ReceivedSpan | undefined = job;
    at?.parentSpanId;
    at = spansWhere((s) => s.spanId === at!.parentSpanId)[0]
  )
    ancestors.add(at.parentSpanId);
  expect(ancestors).toContain(request.spanId);

  // The worker's log lines of the job carry its trace id.
  const workerLines = platform.workers[0]!.output()
    .split('\n')
    .filter((line) => line.startsWith('{'));
  const traced = workerLines
    .map((line) => JSON.parse(line) as { trace_id?: string; span_id?: string })
    .filter((line) => line.trace_id === request.traceId);
  expect(traced.length).toBeGreaterThan(0);
  expect(traced.every((line) => line.span_id === worker.spanId)).toBe(true);
});

it("a content mutation is one trace: content's write and publish, and the gateway's delivery to a graphql-ws subscriber", async () => {
  const client = wsClient(platform.publicUrl, { authorization: `Bearer ${account.token}` });
  const sub = collect<{ onPostCreated: { id: string; title: string } }>(
    client,
    'subscription { onPostCreated { id title } }',
  );
  const title = `traced ${Date.now()}`;
  let attempts = 0;
  // The subscription is live once an event reaches it: until then, each attempt is a new post.
  await eventually(
    async () => {
      attempts += 1;
      const res = await fetch(`${platform.publicUrl}/graphql`, {
        method: 'POST',
        headers: { authorization: `Bearer ${account.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          query: 'mutation ($input: CreatePostInput!) { createPost(input: $input) { success post { id } } }',
          variables: { input: { title: `${title} #${attempts}`, content: 'x', status: 'PUBLISHED' } },
        }),
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { data: { createPost: { success: boolean } } }).data.createPost.success).toBe(true);
      return sub.items.some((item) => item.onPostCreated.title.startsWith(title));
    },
    30_000,
    300,
  );
  expect(sub.errors).toEqual([]);
  const delivered = sub.items.find((item) => item.onPostCreated.title.startsWith(title))!.onPostCreated;
  sub.dispose();
  await client.dispose();
  // Content events are keyed by their entity's GraphQL global id.
  const key = delivered.id;

  const deliver = await oneSpan(
    "for the gateway's delivery",
    (s) =>
      s.service === 'gateway' && s.name.endsWith(' deliver') && s.attributes['messaging.kafka.message.key'] === key,
  );
  expect(deliver.kind).toBe(SPAN_KIND.consumer);
  const publish = await oneSpan(
    "for content's publish",
    (s) =>
      s.service === 'content' && s.name.endsWith(' publish') && s.attributes['messaging.kafka.message.key'] === key,
  );
  expect(publish.kind).toBe(SPAN_KIND.producer);
  expect(deliver.parentSpanId).toBe(publish.spanId);
  expect(deliver.traceId).toBe(publish.traceId);
  expect(deliver.attributes['messaging.message.id']).toBe(publish.attributes['messaging.message.id']);
  // The publish span continues the trace of the write, through the outbox record: content's GraphQL
  // request, itself a child of the gateway's call to content (traceparent on the proxied request).
  const write = spansWhere(
    (s) => s.service === 'content' && s.kind === SPAN_KIND.server && s.traceId === publish.traceId,
  );
  expect(write).toHaveLength(1);
  expect(publish.parentSpanId).toBeDefined();
  const proxied = spansWhere(
    (s) => s.service === 'gateway' && s.kind === SPAN_KIND.client && s.spanId === write[0]!.parentSpanId,
  );
  expect(proxied).toHaveLength(1);
  const edge = spansWhere(
    (s) => s.service === 'gateway' && s.kind === SPAN_KIND.server && s.traceId === publish.traceId,
  );
  expect(edge.map((s) => s.name)).toEqual(['POST /graphql']);
});

it('exports nothing from an app started without the OTEL_* variables', () => {
  expect(receiver.spans.length).toBeGreaterThan(0);
  expect(receiver.spans.filter((s) => s.service === 'auth')).toEqual([]);
  expect(receiver.refused).toEqual([]);
});
