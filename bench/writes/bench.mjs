// bench/writes: what one post created through the platform costs the machine. An open-loop rate of
// REST `POST /api/v1/posts` through one gateway (auth, content and the gateway as processes on the
// local stack); prints the response time, the CPU each process spent per create (from /proc/<pid>/stat)
// and the MongoDB commands per create (serverStatus). The floor, in the same run: the same post and
// outbox record inserted in one transaction by one process calling the driver directly, at the same
// rate (its own CPU and mongod's). Usage (after `npm run build`, stack up):
//   node bench/writes/bench.mjs [--rate 100] [--seconds 15] [--linger <OUTBOX_LINGER_MS>]
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { MongoClient } from 'mongodb';
import {
  account,
  cpuMs,
  percentile,
  stackEnv,
  stackPids as localStackPids,
  startPlatform,
  unique,
} from '../subscriptions/platform.mjs';

const { values } = parseArgs({
  options: {
    rate: { type: 'string', default: '100' },
    seconds: { type: 'string', default: '15' },
    linger: { type: 'string' },
  },
});
const RATE = Number(values.rate);
const COUNT = RATE * Number(values.seconds);
const WARM = 300;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function commands(client) {
  const { metrics } = await client.db('admin').command({ serverStatus: 1 });
  return Object.fromEntries(
    Object.entries(metrics.commands)
      .filter(([, v]) => typeof v === 'object' && typeof v.total === 'number')
      .map(([k, v]) => [k, Number(v.total)]),
  );
}

/** Runs `create` COUNT times at RATE (open loop, after WARM serial ones); the CPU and mongod commands it cost per create. */
async function measure(pids, mongo, create) {
  for (let i = 0; i < WARM; i += 1) await create(`warm-${i}`);
  const latencies = [];
  const pending = [];
  const [cpuBefore, commandsBefore] = [cpuMs(pids), await commands(mongo)];
  const started = performance.now();
  for (let i = 0; i < COUNT; i += 1) {
    const wait = started + (i * 1000) / RATE - performance.now();
    if (wait > 0) await sleep(wait);
    const sent = performance.now();
    pending.push(create(`m-${i}`).then(() => latencies.push(performance.now() - sent)));
  }
  await Promise.all(pending);
  await sleep(500); // the relay's last pass
  const [cpuAfter, commandsAfter] = [cpuMs(pids), await commands(mongo)];
  latencies.sort((a, b) => a - b);
  const perCreate = Object.fromEntries(Object.keys(pids).map((k) => [k, (cpuAfter[k] - cpuBefore[k]) / COUNT]));
  const skip = new Set(['hello', 'isMaster', 'serverStatus', 'ping', 'buildInfo', 'endSessions']);
  const mongodCommands = Object.fromEntries(
    Object.keys(commandsAfter)
      .filter((k) => !skip.has(k))
      .map((k) => [k, (commandsAfter[k] - (commandsBefore[k] ?? 0)) / COUNT])
      .filter(([, v]) => v >= 0.01),
  );
  return {
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    perCreate,
    total: Object.values(perCreate).reduce((a, b) => a + b, 0),
    mongodCommands,
  };
}

function print(name, r) {
  console.log(`${name}: response p50 ${r.p50.toFixed(1)} ms p99 ${r.p99.toFixed(1)} ms`);
  console.log(
    `  CPU per create: ${Object.entries(r.perCreate)
      .map(([k, v]) => `${k} ${v.toFixed(2)} ms`)
      .join(', ')}; total ${r.total.toFixed(2)} ms`,
  );
  console.log(
    `  mongod commands per create: ${Object.entries(r.mongodCommands)
      .map(([k, v]) => `${k} ${v.toFixed(2)}`)
      .join(', ')}; total ${Object.values(r.mongodCommands)
      .reduce((a, b) => a + b, 0)
      .toFixed(2)}`,
  );
}

console.log(
  `${COUNT} creates at ${RATE}/s (after ${WARM} serial ones), load ${fs.readFileSync('/proc/loadavg', 'utf8').trim()}`,
);
const mongo = new MongoClient(stackEnv().MONGO_URL);
await mongo.connect();
const stackPids = localStackPids();

// Floor: the post and its outbox record in one transaction, from this process through the driver.
const floorDb = mongo.db(unique('benchwrites'));
let next = 0;
const floor = await measure({ bench: process.pid, mongod: stackPids.mongod }, mongo, async (title) => {
  const session = mongo.startSession();
  try {
    await session.withTransaction(
      async () => {
        next += 1;
        await floorDb
          .collection('posts')
          .insertOne({ _id: next, title, content: 'bench', createdAt: new Date() }, { session });
        await floorDb
          .collection('outbox')
          .insertOne(
            { _id: `e${next}`, entityId: String(next), rev: 1, event: { type: 'post.created', data: { title } } },
            { session },
          );
      },
      { readConcern: { level: 'snapshot' }, writeConcern: { w: 'majority' } },
    );
  } finally {
    await session.endSession();
  }
});
await floorDb.dropDatabase();
print('floor (one transaction from the driver)', floor);

const platform = await startPlatform({
  gateways: 1,
  contentEnv: values.linger === undefined ? {} : { OUTBOX_LINGER_MS: values.linger },
});
try {
  const [gateway] = platform.gateways;
  const token = await account(gateway.url);
  const pids = {
    gateway: gateway.child.pid,
    content: platform.content.child.pid,
    auth: platform.auth.child.pid,
    bench: process.pid,
    ...stackPids,
  };
  const ours = await measure(pids, mongo, async (title) => {
    const res = await fetch(`${gateway.url}/api/v1/posts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ title, content: 'bench', published: true }),
    });
    await res.arrayBuffer();
    if (res.status !== 201) throw new Error(`create: ${res.status}`);
  });
  print('platform (REST through the gateway)', ours);
  console.log(
    `ratio (ours / floor): CPU per create ${(ours.total / floor.total).toFixed(2)}x, response p50 ${(ours.p50 / floor.p50).toFixed(2)}x`,
  );
} finally {
  await platform.stop();
  await mongo.close();
}
console.log(`load after: ${fs.readFileSync('/proc/loadavg', 'utf8').trim()}`);
