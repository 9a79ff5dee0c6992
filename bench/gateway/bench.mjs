// bench/gateway: what the gateway adds to a content call. Proxied `GET /api/v1/posts` (Bearer JWT
// verified locally, rate + concurrency limits in Redis, identity header signed, streamed through)
// against the direct call to content with a signed identity header, and against a bare Node proxy
// (bare-proxy.mjs: the hop alone, through the same HTTP client, nothing checked), in the same run,
// one request of each per round (rotating which goes first) so all three see the same machine load.
// Usage (after `npx tsc -b apps/auth apps/content apps/gateway`, stack up):
//   node bench/gateway/bench.mjs [--requests 2000] [--concurrency 4]
import { parseArgs } from 'node:util';
import { signIdentity } from '../../libs/identity/dist/index.js';
import path from 'node:path';
import {
  INTERNAL_SECRET,
  account,
  freePort,
  percentile,
  root,
  startPlatform,
  startProcess,
} from '../subscriptions/platform.mjs';

const { values } = parseArgs({
  options: { requests: { type: 'string', default: '2000' }, concurrency: { type: 'string', default: '4' } },
});
const REQUESTS = Number(values.requests);
const CONCURRENCY = Number(values.concurrency);

const platform = await startPlatform({ gateways: 1 });
let bare;
try {
  const gateway = platform.gateways[0].url;
  const token = await account(gateway);
  const sub = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString()).sub;
  for (let i = 0; i < 20; i += 1) {
    const res = await fetch(`${gateway}/api/v1/posts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ title: `Bench post ${i}`, content: 'x'.repeat(500), published: true }),
    });
    if (res.status !== 201) throw new Error(`seed ${res.status}`);
  }
  const bareIdentity = { sub, roles: ['USER'], scope: 'content:read content:write', method: 'bearer_jwt' };
  const barePort = await freePort();
  bare = await startProcess('bare-proxy', path.join(root, 'bench', 'gateway', 'bare-proxy.mjs'), {
    PORT: String(barePort),
    CONTENT_URL: platform.content.url,
    INTERNAL_SECRET,
    IDENTITY: JSON.stringify(bareIdentity),
  });
  let identity = '';
  let signedAt = 0;
  const identityHeader = async () => {
    // The header lives 60 s; the gateway signs one per request, the direct caller reuses one.
    if (Date.now() - signedAt > 20_000) {
      identity = await signIdentity(
        { sub, roles: ['USER'], scope: 'content:read content:write', method: 'bearer_jwt' },
        INTERNAL_SECRET,
      );
      signedAt = Date.now();
    }
    return identity;
  };
  const timed = async (url, headers) => {
    const t0 = performance.now();
    const res = await fetch(url, { headers });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${url} ${res.status}`);
    return performance.now() - t0;
  };
  const direct = () =>
    identityHeader().then((h) => timed(`${platform.content.url}/api/v1/posts`, { 'x-platform-identity': h }));
  const proxied = () => timed(`${gateway}/api/v1/posts`, { authorization: `Bearer ${token}` });
  const hop = () => timed(`${bare.url}/api/v1/posts`, { authorization: `Bearer ${token}` });

  for (let i = 0; i < 50; i += 1) await Promise.all([direct(), proxied(), hop()]); // warm up every path
  const d = [];
  const p = [];
  const h = [];
  const diffs = [];
  const hopDiffs = [];
  let next = 0;
  const worker = async () => {
    while (next < REQUESTS) {
      const i = next++;
      const t = {};
      // Each order of the three in turn, so none always follows another.
      const order = [
        ['d', direct],
        ['p', proxied],
        ['h', hop],
      ];
      for (let k = 0; k < i % 3; k += 1) order.push(order.shift());
      if (Math.floor(i / 3) % 2 === 1) order.reverse();
      for (const [name, call] of order) t[name] = await call();
      d.push(t.d);
      p.push(t.p);
      h.push(t.h);
      diffs.push(t.p - t.d);
      hopDiffs.push(t.h - t.d);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const seconds = (performance.now() - started) / 1000;
  for (const list of [d, p, h, diffs, hopDiffs]) list.sort((x, y) => x - y);
  const f = (n) => `${n.toFixed(2)} ms`;
  console.log(`${REQUESTS} rounds, ${CONCURRENCY} concurrent rounds, ${seconds.toFixed(1)} s`);
  console.log(`direct  GET /api/v1/posts: p50 ${f(percentile(d, 50))}  p99 ${f(percentile(d, 99))}`);
  console.log(`proxied GET /api/v1/posts: p50 ${f(percentile(p, 50))}  p99 ${f(percentile(p, 99))}`);
  console.log(
    `gateway adds: p50 +${f(percentile(p, 50) - percentile(d, 50))}  p99 +${f(percentile(p, 99) - percentile(d, 99))}  (paired difference: median ${f(percentile(diffs, 50))}, p99 ${f(percentile(diffs, 99))})`,
  );
  console.log(
    `ratio proxied / direct: p50 ${(percentile(p, 50) / percentile(d, 50)).toFixed(2)}x  p99 ${(percentile(p, 99) / percentile(d, 99)).toFixed(2)}x`,
  );
  console.log(`bare proxy GET /api/v1/posts: p50 ${f(percentile(h, 50))}  p99 ${f(percentile(h, 99))}`);
  console.log(
    `bare proxy adds: p50 +${f(percentile(h, 50) - percentile(d, 50))}  p99 +${f(percentile(h, 99) - percentile(d, 99))}  (paired difference: median ${f(percentile(hopDiffs, 50))}, p99 ${f(percentile(hopDiffs, 99))})`,
  );
  console.log(
    `gateway beyond the bare hop: p50 +${f(percentile(p, 50) - percentile(h, 50))}  p99 +${f(percentile(p, 99) - percentile(h, 99))}`,
  );
} finally {
  await bare?.stop();
  await platform.stop();
}
