import { startProber, stackPids, yieldProcesses } from '../speech/support/voice-uploads';
import { eventually, startPlatform, type Platform } from './platform';

/**
 * Anonymous GraphQL-over-HTTP bodies built to cost the most do not stall the gateway: eight at once,
 * of each kind, and `/healthz` keeps answering within 50 ms of the gateway's time (time its main
 * thread or the prober waited for a core excluded: `Probe.servedMs`) (docs/security.md "Anonymous work before
 * the limits"). The gateway reads no body before the limiter and the authenticator could refuse the
 * request, and then reads it once, front to back, without parsing it (a megabyte of nested arrays
 * once cost ~300 ms of `JSON.parse`, before any limit). Anonymous callers get a plan that admits all
 * eight, so each body is read: the worst case an operator's limits allow. A latency bound, so this
 * file is in the `alone` project (docs/testing.md).
 */
const HEALTHZ_BOUND_MS = 50;
const CONCURRENT = 8;
/** Probes that must fall inside the bursts for the bound to say anything. */
const PROBES_NEEDED = 30;

let platform: Platform;
let gateway: string;

beforeAll(async () => {
  const room = { rps: 10_000, concurrency: 100 };
  platform = await startPlatform({
    gatewayEnv: { PLAN_LIMITS_JSON: JSON.stringify({ anonymous: room }), LOG_LEVEL: 'warn' },
  });
  gateway = platform.publicUrl;
}, 120_000);

afterAll(async () => {
  await platform?.stop();
}, 30_000);

const MIB = 1024 * 1024;
/** MAX_GRAPHQL_BODY_BYTES's default: bodies just under it are read and judged, larger ones refused. */
const WITHIN = 100 * 1024 - 256;

/** Each kind of body, and the statuses it may get (never a 5xx). */
const BODIES: { name: string; body: string; statuses: number[] }[] = [
  { name: 'nested arrays, 1 MiB', body: '['.repeat(MIB / 2) + ']'.repeat(MIB / 2), statuses: [413] },
  { name: 'one long string, 1 MiB', body: JSON.stringify({ query: 'a'.repeat(MIB) }), statuses: [413] },
  {
    name: 'nested arrays within the bound',
    body: `{"variables":${'['.repeat(WITHIN / 2)}${']'.repeat(WITHIN / 2)}}`,
    statuses: [400],
  },
  {
    name: 'a document of many tokens within the bound',
    body: JSON.stringify({ query: `{ ${'a '.repeat(WITHIN / 2 - 16)}}` }),
    statuses: [200, 400],
  },
  {
    name: 'escaped quotes within the bound',
    body: `{"query":"${'\\"'.repeat(WITHIN / 2 - 8)}"}`,
    statuses: [200, 400],
  },
  { name: 'many numbers within the bound', body: `{"variables":[${'0,'.repeat(WITHIN / 2 - 16)}0]}`, statuses: [400] },
];

async function burst(body: string): Promise<number[]> {
  return Promise.all(
    Array.from({ length: CONCURRENT }, async () => {
      const res = await fetch(`${gateway}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      await res.arrayBuffer();
      return res.status;
    }),
  );
}

describe('anonymous GraphQL bodies do not stall the gateway', () => {
  it(`/healthz is answered within ${HEALTHZ_BOUND_MS} ms of the gateway's time while eight worst-case bodies of each kind arrive at once`, async () => {
    const prober = startProber(`${gateway}/healthz`, platform.gateways[0]!.process.pid!);
    // Warm (its first fetches set up its client), then a few probes of the idle gateway to compare with.
    await eventually(() => prober.probes.length >= 10, 10_000);
    // This process (the client) and the other services and the stack's servers would be on machines
    // of their own: they yield CPU to the gateway where permitted, as in the voice upload test.
    const others = [platform.auth, platform.content]
      .map((app) => app.process.pid)
      .filter((pid): pid is number => pid !== undefined);
    const restore = yieldProcesses([process.pid, ...others, ...stackPids()]);
    const windows: { name: string; from: number; to: number }[] = [];
    const statuses = new Map<string, Set<number>>();
    const during = () => prober.probes.filter((p) => windows.some((w) => p.sentAt >= w.from && p.sentAt <= w.to));
    try {
      for (let round = 0; round < 20 && during().length < PROBES_NEEDED; round++) {
        for (const { name, body } of BODIES) {
          const from = Date.now();
          const answered = await burst(body);
          windows.push({ name, from, to: Date.now() });
          for (const status of answered) statuses.set(name, (statuses.get(name) ?? new Set()).add(status));
        }
      }
    } finally {
      restore();
    }
    await prober.stop();
    // The probes between the prober's warm-up and the first burst: how the machine answers while the gateway is idle.
    const idle = prober.probes
      .slice(5)
      .filter((p) => p.sentAt < (windows[0]?.from ?? 0))
      .map((p) => p.servedMs);
    for (const { name, statuses: allowed } of BODIES) {
      expect({ name, statuses: [...(statuses.get(name) ?? [])].filter((s) => !allowed.includes(s)) }).toEqual({
        name,
        statuses: [],
      });
    }
    const probes = during();
    expect(probes.length).toBeGreaterThanOrEqual(PROBES_NEEDED);
    expect(probes.every((p) => p.status === 200)).toBe(true);
    const slowest = Math.max(...probes.map((p) => p.servedMs));
    if (slowest >= HEALTHZ_BOUND_MS) {
      // Which kind of body each slow probe fell in, and how the idle gateway answered: a slow idle probe means a busy machine.
      const kindAt = (t: number) => windows.find((w) => t >= w.from && t <= w.to)?.name;
      const slow = [...probes]
        .sort((a, b) => b.servedMs - a.servedMs)
        .slice(0, 5)
        .map((p) => ({ servedMs: p.servedMs, latencyMs: p.latencyMs, waitMs: p.waitMs, body: kindAt(p.sentAt) }));
      console.error(JSON.stringify({ idleSlowest: idle.length ? Math.max(...idle) : null, slow }));
    }
    expect(slowest).toBeLessThan(HEALTHZ_BOUND_MS);
  }, 180_000);
});
