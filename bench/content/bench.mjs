#!/usr/bin/env node
// bench/content: GET /api/v1/posts?limit=20 and GraphQL posts(first: 20) { edges { node { title author { name } } } }
// against a seeded database, requests/s and p99, beside a bare express + mongoose floor doing the same reads, in
// the same run. Usage (after `npx tsc -b apps/content` and `node scripts/stack.mjs up`):
//   node bench/content/bench.mjs [--duration 10] [--connections 16] [--posts 600] [--rounds 3]
// --posts sets how many posts are seeded (5 in 6 published), to show how a sorted page scales.
// --cpu-prof <dir> writes a V8 CPU profile of the content service (not the floor) into <dir> when it exits.
// Each line also gives the CPU time per request of every process the request touches (the server, mongod,
// Redis, the load generator), read from /proc around each measurement: on two shared cores a request's cost
// is all of it, not only the server's.
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
const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '16' },
    posts: { type: 'string', default: '600' },
    rounds: { type: 'string', default: '3' },
    'cpu-prof': { type: 'string' },
  },
});
const postCount = Number(values.posts);
const publishedCount = Array.from({ length: postCount }, (_, i) => i % 6 !== 0).filter(Boolean).length;
const duration = Number(values.duration);
const ROUNDS = Number(values.rounds);
const connections = Number(values.connections);
const stack = Object.fromEntries(
  fs
    .readFileSync(path.join(root, '.stack/stack.env'), 'utf8')
    .split('\n')
    .filter((l) => l.includes('='))
    .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
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
  const child = spawn(process.execPath, [...flags, file], {
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.push(child);
  return child;
}

// Seed: 20 authors and --posts posts, 5 in 6 published, all tagged `bench`.
const connection = mongoose.createConnection(stack.MONGO_URL, { dbName: db });
await connection.asPromise();
const now = Date.now();
await connection.collection('users').insertMany(
  Array.from({ length: 20 }, (_, i) => ({
    _id: `author${i}`,
    name: `Author ${i}`,
    nameLower: `author ${i}`,
    email: `a${i}@example.org`,
    avatar: null,
    status: 'ACTIVE',
    role: 'USER',
    createdAt: new Date(now),
    updatedAt: null,
    updatedAtSort: new Date(now),
    rev: 1,
  })),
);
// The tag every post carries has its document, as the service's post writes create it ($setOnInsert).
await connection.collection('tags').insertOne({ _id: 'bench', name: 'Bench' });
for (let from = 0; from < postCount; from += 5000)
  await connection.collection('posts').insertMany(
    Array.from({ length: Math.min(5000, postCount - from) }, (_, k) => {
      const i = from + k;
      const published = i % 6 !== 0;
      return {
        _id: i + 1,
        title: `Post number ${i}`,
        titleLower: `post number ${i}`,
        slug: `post-number-${i}`,
        content: 'Lorem ipsum '.repeat(40),
        excerpt: null,
        status: published ? 'PUBLISHED' : 'DRAFT',
        published,
        publishedAt: published ? new Date(now + i) : null,
        publishedAtSort: new Date(published ? now + i : 0),
        viewCount: 0,
        author: `author${i % 20}`,
        category: null,
        tags: ['bench'],
        createdAt: new Date(now + i * 1000),
        updatedAt: null,
        rev: 1,
        commentInserts: 0,
      };
    }),
  );

const contentPort = await freePort();
const floorPort = await freePort();
// Both servers run as the container images run them (NODE_ENV=production): graphql-js, for one, skips its
// development-only checks then (its instanceOf looks for a second copy of the library on every type check).
const contentChild = start(
  path.join(root, 'apps/content/dist/main.js'),
  {
    ...stack,
    NODE_ENV: 'production',
    PORT: String(contentPort),
    MONGO_DB: db,
    INTERNAL_SECRET: SECRET,
    LOG_LEVEL: 'warn',
    REDIS_PREFIX: `${db}:`,
    KAFKA_TOPIC_PREFIX: `${db}.`,
    OUTBOX_RELAY: 'false',
  },
  values['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(values['cpu-prof'])}`] : [],
);
const floorChild = start(path.join(here, 'floor-server.mjs'), {
  NODE_ENV: 'production',
  MONGO_URL: stack.MONGO_URL,
  MONGO_DB: db,
  PORT: String(floorPort),
});
await waitFor(`http://127.0.0.1:${contentPort}/readyz`);
await waitFor(`http://127.0.0.1:${floorPort}/posts`);
const measured = stackPids();
const ours = contentChild.pid;
const floor = floorChild.pid;

/** CPU time (user + system, ms) of a process so far, from /proc; 0 when it cannot be read. */
function cpuMs(pid) {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime, stime in clock ticks (USER_HZ 100)
  } catch {
    return 0;
  }
}

/** The pid of the process listening on a loopback TCP port (its socket's inode in /proc/net/tcp, then whose fd it is). */
function listenerPid(port) {
  const hex = Number(port).toString(16).toUpperCase().padStart(4, '0');
  const inodes = new Set();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    if (!fs.existsSync(table)) continue;
    for (const row of fs.readFileSync(table, 'utf8').split('\n').slice(1)) {
      const cols = row.trim().split(/\s+/);
      if (cols[1]?.endsWith(`:${hex}`) && cols[3] === '0A') inodes.add(`socket:[${cols[9]}]`);
    }
  }
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let fds = [];
    try {
      fds = fs.readdirSync(`/proc/${entry}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        if (inodes.has(fs.readlinkSync(`/proc/${entry}/fd/${fd}`))) return Number(entry);
      } catch {
        // closed meanwhile
      }
    }
  }
  return undefined;
}

/** The stack's mongod and Redis, by the ports of MONGO_URL and REDIS_URL. */
function stackPids() {
  const pids = {
    mongod: listenerPid(new URL(stack.MONGO_URL.split(',')[0]).port),
    redis: listenerPid(new URL(stack.REDIS_URL).port),
  };
  return Object.fromEntries(Object.entries(pids).filter(([, pid]) => pid !== undefined));
}

function load(url, { method = 'GET', headers = {}, body, requests, server } = {}) {
  const pids = { server, ...measured };
  const before = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuMs(pid)]));
  const ownBefore = process.cpuUsage();
  return new Promise((resolve, reject) => {
    autocannon(
      { url, method, headers, body, connections, duration, ...(requests ? { requests } : {}) },
      (err, result) => {
        if (err) return reject(err);
        if (result.non2xx > 0 || result.errors > 0)
          return reject(new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`));
        const count = result.requests.total;
        const own = process.cpuUsage(ownBefore);
        const cpu = Object.fromEntries(
          Object.entries(pids).map(([name, pid]) => [name, (cpuMs(pid) - before[name]) / count]),
        );
        cpu.client = (own.user + own.system) / 1000 / count;
        resolve({ rps: result.requests.average, p99: result.latency.p99, cpu });
      },
    );
  });
}

// The identity header lives 60 s: sign a fresh one per measurement (each is shorter than that).
const identity = async () => ({
  'x-platform-identity': await signIdentity(
    { sub: 'author0', roles: ['USER'], scope: 'content:read content:write', method: 'bearer_jwt' },
    SECRET,
  ),
  'content-type': 'application/json',
});
const query = JSON.stringify({ query: '{ posts(first: 20) { edges { node { title author { name } } } } }' });
const rest = `http://127.0.0.1:${contentPort}/api/v1/posts?limit=20`;
const gqlUrl = `http://127.0.0.1:${contentPort}/graphql`;

// Sanity: both answer what they should.
const sample = await (await fetch(rest, { headers: await identity() })).json();
if (sample.data.length !== 20 || sample.meta.total !== publishedCount)
  throw new Error(`unexpected REST answer ${JSON.stringify(sample.meta)}`);
const gsample = await (await fetch(gqlUrl, { method: 'POST', headers: await identity(), body: query })).json();
if (gsample.data?.posts?.edges?.length !== 20)
  throw new Error(`unexpected GraphQL answer ${JSON.stringify(gsample).slice(0, 200)}`);

// Each comparison runs `--rounds` times, ours and the floor back to back, who goes first swapping each round
// (the machine drifts: a checkpoint of mongod, Kafka's housekeeping); printed: each side's median, the median of
// the per-round ratios, and every round's ratio.
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
async function compare(measureOurs, measureFloor) {
  const rounds = [];
  for (let r = 0; r < ROUNDS; r += 1) {
    const round = {};
    if (r % 2 === 0) {
      round.ours = await measureOurs(r);
      round.floor = await measureFloor(r);
    } else {
      round.floor = await measureFloor(r);
      round.ours = await measureOurs(r);
    }
    rounds.push(round);
  }
  const side = (key) => {
    const cpu = {};
    for (const name of Object.keys(rounds[0][key].cpu))
      cpu[name] = rounds.reduce((sum, round) => sum + round[key].cpu[name], 0) / rounds.length;
    return {
      rps: median(rounds.map((round) => round[key].rps)),
      p99: median(rounds.map((round) => round[key].p99)),
      cpu,
    };
  };
  const ratios = rounds.map((round) => round.ours.rps / round.floor.rps);
  return { ours: side('ours'), floor: side('floor'), ratio: median(ratios), ratios };
}

await load(rest, { headers: await identity() }); // warm-up
const restCompared = await compare(
  async () => load(rest, { headers: await identity(), server: ours }),
  () => load(`http://127.0.0.1:${floorPort}/posts`, { server: floor }),
);
const gqlCompared = await compare(
  async () => load(gqlUrl, { method: 'POST', headers: await identity(), body: query, server: ours }),
  () =>
    load(`http://127.0.0.1:${floorPort}/graphql-equivalent`, {
      method: 'POST',
      body: '{}',
      headers: { 'x-caller': 'author0' },
      server: floor,
    }),
);
// The same query with @cache bypassed: the cache key includes the caller, so every request comes from a
// caller not seen before (identities signed just before each measurement, since a header lives 60 s; a caller
// with no profile sees what anyone sees). Enough that no caller comes twice (checked below).
const CALLERS = 25000;
let cycled = 0;
const uncachedCompared = await compare(
  async (round) => {
    const callers = await Promise.all(
      Array.from({ length: CALLERS }, (_, i) =>
        signIdentity(
          { sub: `bench-caller-${round}-${i}`, roles: ['USER'], scope: 'content:read', method: 'bearer_jwt' },
          SECRET,
        ),
      ),
    );
    let next = 0;
    const result = await load(gqlUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: query,
      requests: [
        {
          setupRequest: (req) => ({
            ...req,
            headers: { ...req.headers, 'x-platform-identity': callers[next++ % callers.length] },
          }),
        },
      ],
      server: ours,
    });
    cycled = Math.max(cycled, next);
    return result;
  },
  (round) => {
    let next = 0;
    return load(`http://127.0.0.1:${floorPort}/graphql-equivalent`, {
      method: 'POST',
      body: '{}',
      requests: [
        {
          setupRequest: (req) => ({
            ...req,
            headers: { ...req.headers, 'x-caller': `bench-caller-${round}-${next++ % CALLERS}` },
          }),
        },
      ],
      server: floor,
    });
  },
);
if (cycled > CALLERS)
  throw new Error(
    `${cycled} requests cycled through ${CALLERS} callers: some were cache hits, so the uncached figure is not one`,
  );
const line = (name, { ours: o, floor: f, ratio, ratios }) =>
  `${name.padEnd(34)} ours ${o.rps.toFixed(0).padStart(6)} req/s p99 ${String(o.p99).padStart(4)} ms | floor ${f.rps.toFixed(0).padStart(6)} req/s p99 ${String(f.p99).padStart(4)} ms | ratio ${ratio.toFixed(2)}x (rounds ${ratios.map((r) => r.toFixed(2)).join(' ')})`;
console.log(
  `bench/content (${ROUNDS} rounds of ${duration} s per side, ${connections} connections, ${postCount} posts of which ${publishedCount} published; medians)`,
);
console.log(line('GET /api/v1/posts?limit=20', restCompared));
console.log(line('GraphQL posts(first: 20) … (@cache)', gqlCompared));
console.log(line('GraphQL posts(first: 20) … (no cache)', uncachedCompared));
const cpuLine = (name, r) =>
  `${name.padEnd(34)} ${Object.entries(r.cpu)
    .map(([proc, ms]) => `${proc} ${(ms * 1000).toFixed(0)}`)
    .join(', ')} (µs CPU per request, mean of the rounds)`;
console.log('CPU per request, by process:');
for (const [name, compared] of [
  ['REST', restCompared],
  ['GraphQL @cache', gqlCompared],
  ['GraphQL no cache', uncachedCompared],
]) {
  console.log(cpuLine(`${name} ours`, compared.ours));
  console.log(cpuLine(`${name} floor`, compared.floor));
}

await connection.dropDatabase();
await connection.close();
process.exit(0);
