// bench/gateway: what the gateway adds to a content call. Proxied `GET /api/v1/posts` (Bearer JWT
// verified locally, rate + concurrency limits in Redis, identity header signed, streamed through)
// against the direct call to content with a signed identity header, in the same run, paired
// request by request (alternating which goes first) so both see the same machine load.
// Usage (after `npx tsc -b apps/auth apps/content apps/gateway`, stack up):
//   node bench/gateway/bench.mjs [--requests 2000] [--concurrency 4]
import { parseArgs } from 'node:util';
import { signIdentity } from '../../libs/identity/dist/index.js';
import { INTERNAL_SECRET, account, percentile, startPlatform } from '../subscriptions/platform.mjs';

const { values } = parseArgs({ options: { requests: { type: 'string', default: '2000' }, concurrency: { type: 'string', default: '4' } } });
const REQUESTS = Number(values.requests);
const CONCURRENCY = Number(values.concurrency);

const platform = await startPlatform({ gateways: 1 });
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
  let identity = '';
  let signedAt = 0;
  const identityHeader = async () => {
    // The header lives 60 s; the gateway signs one per request, the direct caller reuses one.
    if (Date.now() - signedAt > 20_000) {
      identity = await signIdentity({ sub, roles: ['USER'], scope: 'content:read content:write', method: 'bearer_jwt' }, INTERNAL_SECRET);
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
  const direct = () => identityHeader().then((h) => timed(`${platform.content.url}/api/v1/posts`, { 'x-platform-identity': h }));
  const proxied = () => timed(`${gateway}/api/v1/posts`, { authorization: `Bearer ${token}` });

  for (let i = 0; i < 50; i += 1) await Promise.all([direct(), proxied()]); // warm up both paths
  const d = [];
  const p = [];
  const diffs = [];
  let next = 0;
  const worker = async () => {
    while (next < REQUESTS) {
      const i = next++;
      let a;
      let b;
      if (i % 2 === 0) {
        a = await direct();
        b = await proxied();
      } else {
        b = await proxied();
        a = await direct();
      }
      d.push(a);
      p.push(b);
      diffs.push(b - a);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const seconds = (performance.now() - started) / 1000;
  for (const list of [d, p, diffs]) list.sort((x, y) => x - y);
  const f = (n) => `${n.toFixed(2)} ms`;
  console.log(`${REQUESTS} pairs, ${CONCURRENCY} concurrent pairs, ${seconds.toFixed(1)} s`);
  console.log(`direct  GET /api/v1/posts: p50 ${f(percentile(d, 50))}  p99 ${f(percentile(d, 99))}`);
  console.log(`proxied GET /api/v1/posts: p50 ${f(percentile(p, 50))}  p99 ${f(percentile(p, 99))}`);
  console.log(`gateway adds: p50 +${f(percentile(p, 50) - percentile(d, 50))}  p99 +${f(percentile(p, 99) - percentile(d, 99))}  (paired difference: median ${f(percentile(diffs, 50))}, p99 ${f(percentile(diffs, 99))})`);
  console.log(`ratio proxied / direct: p50 ${(percentile(p, 50) / percentile(d, 50)).toFixed(2)}x  p99 ${(percentile(p, 99) / percentile(d, 99)).toFixed(2)}x`);
} finally {
  await platform.stop();
}
