// Dependency restarts under load. The traffic mix (tests/support/traffic-mix.ts) drives all three interfaces
// while, one at a time, Redis, the Kafka broker, the MongoDB replica-set member (clean stop, then start:
// SIGTERM through scripts/stack.mjs's pid files, `stack.mjs up` again), one gateway replica, content and auth
// (SIGKILL, then started again) go away and come back. Requests during each outage must get a bounded answer
// in their interface's shape (outage-rules.ts), the platform must recover by itself (a round of the mix all
// succeeding), and afterwards nothing is lost: every committed write's event delivered exactly once to every
// subscriber connected for it, every charge matching delivered audio, no job left in the queue.
// Everything runs on a private stack and platform of this file's own (never the shared `.stack/`).
import { Redis } from 'ioredis';
import {
  createTrafficMix,
  deliveryReport,
  eventually,
  type GenerationLedger,
  type RequestRecord,
  type TrafficMix,
} from '@platform/testing';
import { createApiKey, registerAccount } from '../gateway/platform';
import { startFaultPlatform, type AppName, type FaultPlatform } from './support/fault-platform';
import { BOUND_MS, violation } from './support/outage-rules';
import { startPrivateStack, type PrivateStack, type StackPart } from './support/private-stack';

jest.setTimeout(600_000);

let stack: PrivateStack;
let platform: FaultPlatform;
let mix: TrafficMix;
let redis: Redis;
let apiKey: string;

/** From the start of each outage to the round that succeeded after it: requests outside these windows must all succeed. */
const windows: { began: number; done: number }[] = [];
/** Each gateway replica that was killed, and when it served again. */
const kills: { gateway: string; back: number }[] = [];

interface FaultResult {
  fault: string;
  how: string;
  downMs: number;
  recoveryMs: number;
  requests: number;
  failed: number;
}
const results: FaultResult[] = [];

async function characterCount(): Promise<number> {
  const res = await fetch(`${platform.liveGateways()[0]}/v1/user/subscription`, { headers: { 'xi-api-key': apiKey } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { character_count: number }).character_count;
}

interface HistoryItem {
  history_item_id: string;
  state: string;
}

async function historyItems(): Promise<Map<string, HistoryItem>> {
  const res = await fetch(`${platform.liveGateways()[0]}/v1/history?pageSize=1000`, {
    headers: { 'xi-api-key': apiKey },
  });
  expect(res.status).toBe(200);
  const { history } = (await res.json()) as { history: HistoryItem[] };
  return new Map(history.map((h) => [h.history_item_id, h]));
}

/**
 * A generation whose client had the whole audio from a gateway replica that was killed before it served again: the
 * charge is recorded after the last byte is handed over, so a replica killed in between leaves it uncharged and the
 * sweep turns its item failed (docs/speech.md, "Character quota"). Which of the two it was is the history's to say.
 */
function deliveredByKilledGateway(g: GenerationLedger): boolean {
  return g.complete && kills.some((k) => g.gateway === k.gateway && g.startedAt < k.back);
}

/** What the account must have been charged: every generation its client had whole, those of a killed replica as their history says. */
function expectedCharge(items: Map<string, HistoryItem>): number {
  return mix
    .ledgers()
    .generations.filter((g) =>
      deliveredByKilledGateway(g) && g.historyItemId !== undefined
        ? items.get(g.historyItemId)?.state === 'complete'
        : g.complete,
    )
    .reduce((sum, g) => sum + g.characters, 0);
}

/** Whole-file and /stream generations whose history item does not say what the client got (complete exactly when charged). */
function historyMismatches(items: Map<string, HistoryItem>): string[] {
  return mix
    .ledgers()
    .generations.filter(
      (g) =>
        g.historyItemId !== undefined &&
        !deliveredByKilledGateway(g) &&
        (items.get(g.historyItemId)?.state === 'complete') !== g.complete,
    )
    .map((g) => {
      const took = g.endedAt === undefined ? 'not ended' : `${g.endedAt - g.startedAt} ms`;
      // What the apps logged about it says which of them recorded it so (the worker, the gateway, or the reservation sweep).
      const logged = (['gateway-a', 'gateway-b', 'worker-a', 'worker-b'] as const).flatMap((app) =>
        platform
          .app(app)
          .output()
          .split('\n')
          .filter((l) => l.includes(g.historyItemId!))
          .map((l) => `${app}: ${l.slice(0, 300)}`),
      );
      return `${g.operation} ${g.historyItemId}: client ${g.complete ? 'got the whole audio' : 'did not'} (${g.audioBytes} bytes, sent ${new Date(g.startedAt).toISOString()}, took ${took}), history ${JSON.stringify(items.get(g.historyItemId!))}, logged ${JSON.stringify(logged)}`;
    });
}

beforeAll(async () => {
  stack = await startPrivateStack('faults-');
  platform = await startFaultPlatform(stack.env, {
    // Reservations left by a gateway killed mid-generation are released by the workers' sweep; short here so the
    // charge check can await it (docs/speech.md, "Character quota"), yet longer than a generation may take in an
    // outage (the speech bound): a reservation swept while its generation is still running makes a delivered
    // generation uncharged and its item failed.
    worker: { SPEECH_RESERVATION_SWEEP_MS: '2000', SPEECH_RESERVATION_MAX_AGE_MS: String(2 * BOUND_MS.speech) },
  });
  redis = new Redis(stack.env.REDIS_URL, { maxRetriesPerRequest: 2, lazyConnect: true });
  redis.on('error', () => undefined);
  const gateway = platform.liveGateways()[0]!;
  // createComment allows 20 per minute per account (docs/content.md): six writers in turn keep the mix's comments, and the
  // rounds a recovery repeats, well inside it.
  const writers = await Promise.all(
    ['Ada', 'Bo', 'Cy', 'Di', 'Ed', 'Fay'].map((name) => registerAccount(gateway, `${name} Fault`)),
  );
  apiKey = (await createApiKey(platform.app('auth').url, writers[0]!.id)).key;
  const client = await platform.authCli<{ client_id: string; client_secret: string }>([
    'clients:create',
    '--name',
    'fault-mix',
    '--type',
    'confidential',
    '--grant',
    'client_credentials',
  ]);
  mix = createTrafficMix({
    gateways: () => platform.liveGateways(),
    issuer: platform.publicUrl,
    oauthClient: { clientId: client.client_id, clientSecret: client.client_secret },
    apiKey,
    contentTokens: writers.map((w) => w.token),
    ratePerSecond: 4,
    // Past every bound in outage-rules.ts, so a request that hangs is recorded as such, not cut at the bound.
    requestTimeoutMs: 90_000,
    // Spread over both gateways (subscriber i starts on replica i mod 2): those on the replica that is killed reconnect to the other.
    subscribers: 4,
  });
  await mix.start();
  await eventually(() => mix.subscribersLive(), 60_000, 200);
}, 400_000);

afterAll(async () => {
  await mix?.stop(0).catch(() => undefined);
  redis?.disconnect();
  await platform?.stop();
  await stack?.down();
  if (results.length > 0) {
    console.log(
      [
        'fault | how | down (s) | recovered after restart (s) | requests during | failed (bounded, in shape)',
        '--- | --- | --- | --- | --- | ---',
      ]
        .concat(
          results.map(
            (r) =>
              `${r.fault} | ${r.how} | ${(r.downMs / 1000).toFixed(1)} | ${(r.recoveryMs / 1000).toFixed(1)} | ${r.requests} | ${r.failed}`,
          ),
        )
        .join('\n'),
    );
  }
}, 300_000);

/** A round of every operation succeeding: the platform serves again. */
async function recovered(): Promise<void> {
  await eventually(async () => (await mix.round()).every((r) => r.outcome.ok), 180_000, 500);
}

/** Takes something away, keeps the mix going until requests have met the outage, brings it back, and checks what the clients saw. */
async function outage(
  fault: string,
  how: string,
  takeDown: () => Promise<void>,
  bringBack: () => Promise<void>,
  killedGateway?: string,
): Promise<void> {
  await recovered();
  const began = Date.now();
  await takeDown();
  const down = Date.now();
  // Enough requests have met the outage: eight of them started after it began and have been answered.
  await eventually(() => mix.records().filter((r) => r.start >= down).length >= 8, 120_000, 100);
  await bringBack();
  const back = Date.now();
  await recovered();
  const done = Date.now();
  windows.push({ began, done });
  if (killedGateway !== undefined) kills.push({ gateway: killedGateway, back });
  const during = mix.records().filter((r) => r.start >= began && r.start + r.latencyMs <= done);
  const wrong = during
    .map((r) => ({
      r,
      why: violation(r, killedGateway !== undefined && r.gateway === killedGateway && r.start < back),
    }))
    .filter((v): v is { r: RequestRecord; why: string } => v.why !== null)
    .map(({ r, why }) => `${r.operation} via ${r.gateway}: ${why}`);
  results.push({
    fault,
    how,
    downMs: back - down,
    recoveryMs: done - back,
    requests: during.length,
    failed: during.filter((r) => !r.outcome.ok).length,
  });
  expect(wrong).toEqual([]);
  // Every subscriber is live again (reconnected where its replica went away), so what it is owed below is checked.
  await eventually(() => mix.subscribersLive(), 60_000, 200);
  // Every event owed so far arrives, once.
  await eventually(() => deliveryReport(mix.ledgers(), { startedBefore: done }).missing.size === 0, 90_000, 200).catch(
    () => undefined,
  );
  const report = deliveryReport(mix.ledgers(), { startedBefore: done });
  // When events are missing, what the gateways' content feeds logged says why.
  const feedLog =
    report.missing.size === 0
      ? []
      : (['gateway-a', 'gateway-b'] as const).flatMap((g) =>
          platform
            .app(g)
            .output()
            .split('\n')
            .filter((l) => /content feed|Consumer/.test(l))
            .map((l) => `${g}: ${l.slice(0, 300)}`),
        );
  expect({
    missing: Object.fromEntries(report.missing),
    duplicated: Object.fromEntries(report.duplicated),
    unknown: report.unknown,
    feedLog,
  }).toEqual({ missing: {}, duplicated: {}, unknown: [], feedLog: [] });
}

const stackFault = (part: StackPart) => () =>
  outage(
    part,
    'SIGTERM, then stack.mjs up',
    () => stack.stop(part),
    () => stack.start(),
  );
const appFault = (name: AppName) => () => {
  const url = platform.app(name).url;
  return outage(
    name,
    'SIGKILL, then started again',
    () => platform.kill(name),
    () => platform.restart(name),
    name.startsWith('gateway') ? url : undefined,
  );
};

it('Redis restarts', stackFault('redis'));
it('the Kafka broker restarts', stackFault('kafka'));
it('the MongoDB replica-set member restarts', stackFault('mongo'));
it('a gateway replica is killed and restarted', async () => {
  const killed = platform.app('gateway-b').url;
  const onKilled = mix.ledgers().subscribers.filter((s) => s.sessions.at(-1)?.gateway === killed);
  // Subscriber i connects to live replica i mod 2: half of them are on the replica that is killed.
  expect(onKilled).toHaveLength(2);
  await appFault('gateway-b')();
  // They reconnected through the other replica, are live there, and (checked in outage) got what they were owed since.
  for (const sub of onKilled)
    expect(sub.sessions.some((s) => s.gateway !== killed && s.liveAt !== undefined)).toBe(true);
});
it('content is killed and restarted', appFault('content'));
it('auth is killed and restarted', appFault('auth'));

it('afterwards nothing is lost: events exactly once, charges match delivered audio, the queue drained', async () => {
  await mix.stop(90_000);
  const ledgers = mix.ledgers();
  // No request hung, whenever it started (one that began in an outage and ended after it is checked here too).
  const overdue = mix
    .records()
    .filter((r) => r.outcome.code === 'client-timeout' || r.latencyMs > BOUND_MS[r.interface]);
  expect(overdue.map((r) => `${r.operation} via ${r.gateway}: ${r.latencyMs} ms ${JSON.stringify(r.outcome)}`)).toEqual(
    [],
  );
  const outside = mix
    .records()
    .filter((r) => !windows.some((w) => r.start + r.latencyMs >= w.began && r.start <= w.done));
  expect(outside.length).toBeGreaterThan(0);
  expect(
    outside.filter((r) => !r.outcome.ok).map((r) => `${r.operation} via ${r.gateway}: ${JSON.stringify(r.outcome)}`),
  ).toEqual([]);
  const report = deliveryReport(ledgers);
  expect(report.owed).toBeGreaterThan(0);
  expect({
    missing: Object.fromEntries(report.missing),
    duplicated: Object.fromEntries(report.duplicated),
    unknown: report.unknown,
  }).toEqual({ missing: {}, duplicated: {}, unknown: [] });
  for (const sub of ledgers.subscribers) expect(sub.errors).toEqual([]);

  expect(ledgers.generations.filter((g) => g.complete).length).toBeGreaterThan(0);
  // Reservations a killed gateway never settled come back with the workers' sweep (SPEECH_RESERVATION_MAX_AGE_MS above),
  // which also turns their items failed.
  const settled = async () => {
    const items = await historyItems();
    return { charged: await characterCount(), expected: expectedCharge(items), mismatches: historyMismatches(items) };
  };
  const balanced = (s: Awaited<ReturnType<typeof settled>>) => s.charged === s.expected && s.mismatches.length === 0;
  await eventually(async () => balanced(await settled()), 150_000, 500).catch(() => undefined);
  const final = await settled();
  expect(final.expected).toBeGreaterThan(0);
  expect({ charged: final.charged, mismatches: final.mismatches }).toEqual({ charged: final.expected, mismatches: [] });
  // A live gateway never failed to record a charge: only a killed replica may leave one to the sweep.
  const settleFailures = (['gateway-a', 'gateway-b'] as const).flatMap((g) =>
    platform
      .app(g)
      .output()
      .split('\n')
      .filter((l) => l.includes('quota settle failed')),
  );
  expect(settleFailures).toEqual([]);

  const q = `bull:${platform.speech.queue}`;
  const counts = async () => ({
    active: await redis.llen(`${q}:active`),
    wait: await redis.llen(`${q}:wait`),
    prioritized: await redis.zcard(`${q}:prioritized`),
  });
  await eventually(async () => Object.values(await counts()).every((n) => n === 0), 60_000, 200).catch(() => undefined);
  expect(await counts()).toEqual({ active: 0, wait: 0, prioritized: 0 });
  console.log(JSON.stringify(mix.summary(), null, 1));
});
