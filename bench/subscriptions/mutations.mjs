import { monitorEventLoopDelay } from 'node:perf_hooks';

// The mutation each side of bench/subscriptions is sent, as a function of a plain description (so that the
// driver thread, driver.mjs, can build the same one): `{ kind: 'floor', url }` is the Apollo floor's GraphQL
// `createPost`; `{ kind: 'platform', urls, token }` a REST `POST /api/v1/posts` through the gateways in turn.
export function mutation(target) {
  if (target.kind === 'floor') {
    return async (title) => {
      const res = await fetch(`${target.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          query: 'mutation($t: String!) { createPost(title: $t) { id } }',
          variables: { t: title },
        }),
      });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(String(res.status));
    };
  }
  let turn = 0;
  return async (title) => {
    const via = target.urls[turn++ % target.urls.length];
    const res = await fetch(`${via}/api/v1/posts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${target.token}` },
      body: JSON.stringify({ title, content: 'bench', published: true }),
    });
    await res.arrayBuffer();
    if (res.status !== 201) throw new Error(String(res.status));
  };
}

/**
 * Sends `m-0` … `m-{count-1}`, one every `intervalMs` (open loop; a tick that finds `maxInFlight` outstanding is
 * skipped). Times are absolute (`performance.timeOrigin + performance.now()`, milliseconds), so that another thread
 * can compare them with its own; -1 where a mutation was not sent or not answered. Before them, on the same
 * clock and with no pause between, `warmupCount` mutations titled `warm-r…` that are not measured (steady state:
 * every process's JIT, caches and connections warmed at the rate being measured); `onMeasuring` is called when
 * the first measured one is due.
 */
export async function drive(
  mutate,
  { count, intervalMs, maxInFlight, warmupCount = 0 },
  onMeasuring = () => undefined,
) {
  // This thread's own event-loop delay while it sends the measured ones: how late the schedule and the response times are.
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  const now = () => performance.timeOrigin + performance.now();
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const sent = new Float64Array(count).fill(-1);
  const responded = new Float64Array(count).fill(-1);
  let inFlight = 0;
  let skipped = 0;
  let warmupSkipped = 0;
  let failed = 0;
  const clock = now();
  let started = clock;
  const pending = [];
  for (let tick = 0; tick < warmupCount + count; tick += 1) {
    const wait = clock + tick * intervalMs - now();
    if (wait > 0) await sleep(wait);
    const i = tick - warmupCount;
    if (i === 0) {
      started = now();
      loopDelay.enable();
      onMeasuring();
    }
    if (inFlight >= maxInFlight) {
      if (i >= 0) skipped += 1;
      else warmupSkipped += 1;
      continue;
    }
    inFlight += 1;
    if (i >= 0) sent[i] = now();
    pending.push(
      mutate(i >= 0 ? `m-${i}` : `warm-r${tick}`)
        .then(() => {
          if (i >= 0) responded[i] = now();
        })
        .catch(() => {
          if (i >= 0) failed += 1;
        })
        .finally(() => (inFlight -= 1)),
    );
  }
  await Promise.all(pending);
  loopDelay.disable();
  const finished = now();
  return {
    sent,
    responded,
    skipped,
    warmupSkipped,
    failed,
    started,
    finished,
    loopDelayP50: loopDelay.percentile(50) / 1e6,
    loopDelayP99: loopDelay.percentile(99) / 1e6,
  };
}
