#!/usr/bin/env node
// bench/content: GET /api/v1/posts?limit=20 and GraphQL posts(first: 20) { edges { node { title author { name } } } }
// against a seeded database, requests/s and p99, beside a bare express + mongoose floor doing the same reads, in
// the same run. Usage (after `npx tsc -b apps/content` and `node scripts/stack.mjs up`):
//   node bench/content/bench.mjs [--duration 10] [--connections 16] [--posts 600]
// --posts sets how many posts are seeded (5 in 6 published), to show how a sorted page scales.
// --cpu-prof <dir> writes a V8 CPU profile of the content service (not the floor) into <dir> when it exits.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import mongoose from 'mongoose';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const require = createRequire(import.meta.url);
const { signIdentity } = require(path.join(root, 'libs/identity/dist/index.js'));
const { values } = parseArgs({ options: { duration: { type: 'string', default: '10' }, connections: { type: 'string', default: '16' }, posts: { type: 'string', default: '600' }, 'cpu-prof': { type: 'string' } } });
const postCount = Number(values.posts);
const publishedCount = Array.from({ length: postCount }, (_, i) => i % 6 !== 0).filter(Boolean).length;
const duration = Number(values.duration);
const connections = Number(values.connections);
const stack = Object.fromEntries(
  fs.readFileSync(path.join(root, '.stack/stack.env'), 'utf8').split('\n').filter((l) => l.includes('=')).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
);
const SECRET = randomBytes(24).toString('hex');
const db = `bench_content_${Date.now().toString(36)}`;

function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

async function waitFor(url) {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(url)).status < 500) return;
    } catch {
      // not yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not answer`);
}

const children = [];
process.on('exit', () => children.forEach((c) => c.kill('SIGTERM')));
function start(file, env, flags = []) {
  const child = spawn(process.execPath, [...flags, file], { env: { PATH: process.env.PATH, ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
  children.push(child);
  return child;
}

// Seed: 20 authors and --posts posts, 5 in 6 published, all tagged `bench`.
const connection = mongoose.createConnection(stack.MONGO_URL, { dbName: db });
await connection.asPromise();
const now = Date.now();
await connection.collection('users').insertMany(
  Array.from({ length: 20 }, (_, i) => ({ _id: `author${i}`, name: `Author ${i}`, nameLower: `author ${i}`, email: `a${i}@example.org`, avatar: null, status: 'ACTIVE', role: 'USER', createdAt: new Date(now), updatedAt: null, updatedAtSort: new Date(now), rev: 1 })),
);
// The tag every post carries has its document, as the service's post writes create it ($setOnInsert).
await connection.collection('tags').insertOne({ _id: 'bench', name: 'Bench' });
for (let from = 0; from < postCount; from += 5000) await connection.collection('posts').insertMany(
  Array.from({ length: Math.min(5000, postCount - from) }, (_, k) => {
    const i = from + k;
    const published = i % 6 !== 0;
    return {
      _id: i + 1, title: `Post number ${i}`, titleLower: `post number ${i}`, slug: `post-number-${i}`, content: 'Lorem ipsum '.repeat(40), excerpt: null,
      status: published ? 'PUBLISHED' : 'DRAFT', published, publishedAt: published ? new Date(now + i) : null, publishedAtSort: new Date(published ? now + i : 0),
      viewCount: 0, author: `author${i % 20}`, category: null, tags: ['bench'], createdAt: new Date(now + i * 1000), updatedAt: null, rev: 1, commentInserts: 0,
    };
  }),
);

const contentPort = await freePort();
const floorPort = await freePort();
start(path.join(root, 'apps/content/dist/main.js'), {
  ...stack, PORT: String(contentPort), MONGO_DB: db, INTERNAL_SECRET: SECRET, LOG_LEVEL: 'warn',
  REDIS_PREFIX: `${db}:`, KAFKA_TOPIC_PREFIX: `${db}.`, OUTBOX_RELAY: 'false',
}, values['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(values['cpu-prof'])}`] : []);
start(path.join(here, 'floor-server.mjs'), { MONGO_URL: stack.MONGO_URL, MONGO_DB: db, PORT: String(floorPort) });
await waitFor(`http://127.0.0.1:${contentPort}/readyz`);
await waitFor(`http://127.0.0.1:${floorPort}/posts`);

function load(url, { method = 'GET', headers = {}, body, requests } = {}) {
  return new Promise((resolve, reject) => {
    autocannon({ url, method, headers, body, connections, duration, ...(requests ? { requests } : {}) }, (err, result) => {
      if (err) return reject(err);
      if (result.non2xx > 0 || result.errors > 0) return reject(new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`));
      resolve({ rps: result.requests.average, p99: result.latency.p99 });
    });
  });
}

// The identity header lives 60 s: sign a fresh one per measurement (each is shorter than that).
const identity = async () => ({
  'x-platform-identity': await signIdentity({ sub: 'author0', roles: ['USER'], scope: 'content:read content:write', method: 'bearer_jwt' }, SECRET),
  'content-type': 'application/json',
});
const query = JSON.stringify({ query: '{ posts(first: 20) { edges { node { title author { name } } } } }' });
const rest = `http://127.0.0.1:${contentPort}/api/v1/posts?limit=20`;
const gqlUrl = `http://127.0.0.1:${contentPort}/graphql`;

// Sanity: both answer what they should.
const sample = await (await fetch(rest, { headers: await identity() })).json();
if (sample.data.length !== 20 || sample.meta.total !== publishedCount) throw new Error(`unexpected REST answer ${JSON.stringify(sample.meta)}`);
const gsample = await (await fetch(gqlUrl, { method: 'POST', headers: await identity(), body: query })).json();
if (gsample.data?.posts?.edges?.length !== 20) throw new Error(`unexpected GraphQL answer ${JSON.stringify(gsample).slice(0, 200)}`);

// Warm-up, then measure, alternating ours and the floor.
await load(rest, { headers: await identity() });
const results = {
  restOurs: await load(rest, { headers: await identity() }),
  restFloor: await load(`http://127.0.0.1:${floorPort}/posts`),
  gqlOurs: await load(gqlUrl, { method: 'POST', headers: await identity(), body: query }),
  gqlFloor: await load(`http://127.0.0.1:${floorPort}/graphql-equivalent`, { method: 'POST', body: '{}', headers: { 'x-caller': 'author0' } }),
};
// The same query with @cache bypassed: the cache key includes the caller, so every request comes from a
// caller not seen before (identities signed up front; a caller with no profile sees what anyone sees).
const callers = await Promise.all(
  // Enough that no caller comes twice in one measurement (the count is checked below).
  Array.from({ length: 40000 }, (_, i) => signIdentity({ sub: `bench-caller-${i}`, roles: ['USER'], scope: 'content:read', method: 'bearer_jwt' }, SECRET)),
);
let next = 0;
results.gqlUncached = await load(gqlUrl, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: query,
  requests: [{ setupRequest: (req) => ({ ...req, headers: { ...req.headers, 'x-platform-identity': callers[next++ % callers.length] } }) }],
});
let nextFloor = 0;
results.gqlFloorAgain = await load(`http://127.0.0.1:${floorPort}/graphql-equivalent`, {
  method: 'POST',
  body: '{}',
  requests: [{ setupRequest: (req) => ({ ...req, headers: { ...req.headers, 'x-caller': `bench-caller-${nextFloor++ % callers.length}` } }) }],
});
if (next > callers.length) throw new Error(`${next} requests cycled through ${callers.length} callers: some were cache hits, so the uncached figure is not one`);
const line = (name, ours, floor) =>
  `${name.padEnd(34)} ours ${ours.rps.toFixed(0).padStart(6)} req/s p99 ${String(ours.p99).padStart(4)} ms | floor ${floor.rps.toFixed(0).padStart(6)} req/s p99 ${String(floor.p99).padStart(4)} ms | ratio ${(ours.rps / floor.rps).toFixed(2)}x`;
console.log(`bench/content (${duration} s, ${connections} connections, ${postCount} posts of which ${publishedCount} published)`);
console.log(line('GET /api/v1/posts?limit=20', results.restOurs, results.restFloor));
console.log(line('GraphQL posts(first: 20) … (@cache)', results.gqlOurs, results.gqlFloor));
console.log(line('GraphQL posts(first: 20) … (no cache)', results.gqlUncached, results.gqlFloorAgain));

await connection.dropDatabase();
await connection.close();
process.exit(0);
