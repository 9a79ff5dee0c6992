#!/usr/bin/env node
// bench/auth: client_credentials issuance and introspection, requests/s and p99 at a fixed concurrency,
// for our auth server and for oidc-provider in the same run. Usage (after `npx tsc -b apps/auth` and
// `node scripts/stack.mjs up`):  node bench/auth/bench.mjs [--duration 5] [--connections 16] [--rounds 3]
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '16' },
    rounds: { type: 'string', default: '3' },
  },
});
const duration = Number(values.duration);
const connections = Number(values.connections);
const rounds = Number(values.rounds);

const stack = Object.fromEntries(
  fs
    .readFileSync(path.join(root, '.stack/stack.env'), 'utf8')
    .split('\n')
    .filter((l) => l.includes('='))
    .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
);

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
      const res = await fetch(url);
      if (res.status < 500) return;
    } catch {
      // not yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not answer`);
}

function load(url, { headers, body }) {
  return new Promise((resolve, reject) => {
    autocannon({ url, method: 'POST', headers, body, connections, duration }, (err, result) =>
      err ? reject(err) : resolve(result),
    );
  });
}

const children = [];
process.on('exit', () => children.forEach((c) => c.kill('SIGTERM')));

// Both servers run side by side (an idle one costs nothing); the measurements alternate between them,
// in rounds, swapping who goes first, so the load other processes put on the machine falls on both alike.
async function prepare(name, tokenUrl, introspectUrl, basic, introspectTokenBody) {
  const headers = { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' };
  const first = await fetch(tokenUrl, { method: 'POST', headers, body: introspectTokenBody });
  if (first.status !== 200) throw new Error(`${name}: token request failed ${first.status} ${await first.text()}`);
  const { access_token } = await first.json();
  const sample = await (await fetch(introspectUrl, { method: 'POST', headers, body: `token=${access_token}` })).json();
  if (sample.active !== true) throw new Error(`${name}: introspection says inactive`);
  const run = async (what) => {
    const r =
      what === 'issue'
        ? await load(tokenUrl, { headers, body: 'grant_type=client_credentials&scope=speech:read' })
        : await load(introspectUrl, { headers, body: `token=${access_token}` });
    if (r.non2xx > 0 || r.errors > 0) throw new Error(`${name} ${what}: ${r.non2xx} non-2xx, ${r.errors} errors`);
    return { rps: r.requests.average, p99: r.latency.p99 };
  };
  await run('issue'); // warm-up (JIT, caches)
  return run;
}

// Ours
const ourPort = await freePort();
const ourUrl = `http://127.0.0.1:${ourPort}`;
const env = {
  ...process.env,
  ...stack,
  PORT: String(ourPort),
  PUBLIC_URL: ourUrl,
  MONGO_DB: `bench_auth_${randomBytes(3).toString('hex')}`,
  INTERNAL_SECRET: randomBytes(32).toString('hex'),
  LOG_LEVEL: 'silent',
};
children.push(spawn(process.execPath, [path.join(root, 'apps/auth/dist/main.js')], { env, stdio: 'ignore' }));
await waitFor(`${ourUrl}/readyz`);
const client = JSON.parse(
  execFileSync(
    process.execPath,
    [
      path.join(root, 'apps/auth/dist/cli/main.js'),
      'clients:create',
      '--name',
      'bench',
      '--type',
      'confidential',
      '--grant',
      'client_credentials',
      '--scope',
      'speech:read',
    ],
    { env, encoding: 'utf8' },
  ),
);

// oidc-provider
const opPort = await freePort();
const secret = randomBytes(24).toString('hex');
children.push(
  spawn(process.execPath, [path.join(here, 'oidc-provider-server.mjs')], {
    env: {
      ...process.env,
      PORT: String(opPort),
      CLIENT_SECRET: secret,
      REDIS_URL: stack.REDIS_URL,
      NODE_ENV: 'production',
    },
    stdio: 'ignore',
  }),
);
await waitFor(`http://127.0.0.1:${opPort}/.well-known/openid-configuration`);

const ours = await prepare(
  'ours',
  `${ourUrl}/token`,
  `${ourUrl}/introspect`,
  Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64'),
  'grant_type=client_credentials&scope=speech:read',
);
const theirs = await prepare(
  'oidc-provider',
  `http://127.0.0.1:${opPort}/token`,
  `http://127.0.0.1:${opPort}/token/introspection`,
  Buffer.from(`bench:${secret}`).toString('base64'),
  'grant_type=client_credentials&scope=speech:read&resource=urn:bench:opaque',
);

const results = { issue: { ours: [], theirs: [] }, introspect: { ours: [], theirs: [] } };
for (let round = 0; round < rounds; round++) {
  for (const what of ['issue', 'introspect']) {
    const order = round % 2 === 0 ? ['ours', 'theirs'] : ['theirs', 'ours'];
    for (const who of order) results[what][who].push(await (who === 'ours' ? ours : theirs)(what));
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
const summary = (what) => {
  const a = { rps: median(results[what].ours.map((r) => r.rps)), p99: median(results[what].ours.map((r) => r.p99)) };
  const b = {
    rps: median(results[what].theirs.map((r) => r.rps)),
    p99: median(results[what].theirs.map((r) => r.p99)),
  };
  const ratios = results[what].ours.map((r, i) => r.rps / results[what].theirs[i].rps);
  return { a, b, ratio: median(ratios), ratios };
};
const row = (label, { a, b, ratio, ratios }) =>
  `${label.padEnd(28)} ours ${a.rps.toFixed(0).padStart(6)} req/s p99 ${String(a.p99).padStart(4)} ms | oidc-provider ${b.rps.toFixed(0).padStart(6)} req/s p99 ${String(b.p99).padStart(4)} ms | ratio ${ratio.toFixed(2)}x (rounds: ${ratios.map((r) => r.toFixed(2)).join(' ')})`;
console.log(
  `connections ${connections}, ${duration} s per measurement, ${rounds} alternating rounds (medians), node ${process.version}`,
);
console.log(row('client_credentials issuance', summary('issue')));
console.log(row('introspection', summary('introspect')));
process.exit(0);
