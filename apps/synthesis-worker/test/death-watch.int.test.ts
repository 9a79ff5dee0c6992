import { Queue, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { eventually, stackEnv, uniqueName } from '@platform/testing';
import {
  createDeathWatch,
  livenessName,
  liveWorkerIds,
  lookForDeaths,
  runStalledCheck,
  type QueueLockKeys,
} from '../src/liveness/death-watch';

/**
 * The death watch (docs/decisions.md, worker liveness): a worker process whose named heartbeat
 * connection vanished from CLIENT LIST (a killed process's sockets close at once) has its job locks
 * released and its jobs back at the head of the queue long before its lock could lapse; a worker
 * whose connection stays open (however busy) keeps its jobs, and so does a lock a new owner holds.
 * Each "process" here is a manual BullMQ worker and a connection named as its heartbeat's.
 */

const { REDIS_URL } = stackEnv();
/** Far longer than any test here: a job back in the queue was released, not lapsed. */
const LOCK_MS = 120_000;
const queueName = uniqueName('death-watch');
const opened: { close(): Promise<unknown> }[] = [];
let queue: Queue;

function namedConnection(name: string): Redis {
  const redis = new Redis(REDIS_URL, { connectionName: name, maxRetriesPerRequest: 1 });
  opened.push({ close: async () => redis.disconnect() });
  return redis;
}

/** A worker process as the watch sees it: a BullMQ worker and its named heartbeat connection. */
async function workerProcess() {
  const worker = new Worker(queueName, null, { connection: { url: REDIS_URL }, autorun: false, lockDuration: LOCK_MS });
  opened.push(worker);
  const heartbeat = namedConnection(livenessName([worker.id]));
  await heartbeat.ping();
  let fetches = 0;
  return {
    worker,
    heartbeat,
    async take(): Promise<Job> {
      const job = await worker.getNextJob(`${worker.id}:${fetches++}`, { block: false });
      if (!job) throw new Error('no job in the queue');
      return job;
    },
  };
}

const keysOf = (worker: Worker): QueueLockKeys => ({
  activeKey: worker.keys.active!,
  stalledKey: worker.keys.stalled!,
  stalledCheckKey: worker.keys['stalled-check']!,
  jobKeyPrefix: worker.toKey(''),
});

beforeAll(async () => {
  queue = new Queue(queueName, { connection: { url: REDIS_URL } });
  await queue.waitUntilReady();
});
afterAll(async () => {
  for (const o of opened.reverse()) await o.close();
  await queue.obliterate({ force: true });
  await queue.close();
});

describe('who is alive, from CLIENT LIST', () => {
  it('reads the worker ids of every heartbeat connection and nothing else', () => {
    const list = [
      `id=3 addr=127.0.0.1:5000 laddr=127.0.0.1:6379 fd=8 name=${livenessName(['a1', 'a2'])} age=9 idle=0 flags=N db=0 cmd=eval`,
      'id=4 addr=127.0.0.1:5001 laddr=127.0.0.1:6379 fd=9 name= age=9 idle=0 flags=N db=0 cmd=get',
      'id=5 addr=127.0.0.1:5002 laddr=127.0.0.1:6379 fd=10 name=bull:c3ludGhlc2lz age=9 idle=0 flags=N db=0 cmd=bzpopmin',
      `id=6 addr=127.0.0.1:5003 laddr=127.0.0.1:6379 fd=11 name=${livenessName(['b1'])} age=1 idle=0 flags=N db=0 cmd=client|list`,
    ].join('\n');
    expect([...liveWorkerIds(list)].sort()).toEqual(['a1', 'a2', 'b1']);
  });

  it('judges only workers seen before; a reset forgets everyone', () => {
    const deaths = createDeathWatch();
    // b was never seen: a process that just started is not taken for dead.
    expect(deaths.observe(new Set(['a']))).toEqual([]);
    expect(deaths.observe(new Set(['b']))).toEqual(['a']);
    expect(deaths.observe(new Set(['b']))).toEqual([]);
    deaths.reset();
    expect(deaths.observe(new Set())).toEqual([]);
  });
});

describe("releasing a dead worker's jobs", () => {
  it('a worker whose connection closed loses its jobs at once; a live one keeps them, and so does a new owner', async () => {
    const dying = await workerProcess();
    const busy = await workerProcess();
    const watcher = await workerProcess();
    await queue.add('a', { n: 1 });
    await queue.add('b', { n: 2 });
    await queue.add('c', { n: 3 });
    const dyingJob = await dying.take();
    const busyJob = await busy.take();
    const retakenJob = await dying.take();
    const keys = keysOf(watcher.worker);
    const lockOf = (job: Job) => watcher.heartbeat.get(`${keys.jobKeyPrefix}${job.id}:lock`);
    const deaths = createDeathWatch();

    // Everyone seen alive: nothing released.
    expect(await lookForDeaths(watcher.heartbeat, deaths, keys, [watcher.worker.id])).toEqual([]);
    // The third job passed to a new owner meanwhile (its lock holds the busy worker's token).
    await watcher.heartbeat.set(`${keys.jobKeyPrefix}${retakenJob.id}:lock`, `${busy.worker.id}:9`, 'PX', LOCK_MS);
    // Killed: the kernel closes the process's sockets, and Redis drops its heartbeat connection.
    dying.heartbeat.disconnect();
    let released: string[] = [];
    await eventually(
      async () => (released = await lookForDeaths(watcher.heartbeat, deaths, keys, [watcher.worker.id])).length > 0,
      10_000,
      10,
    );

    expect(released).toEqual([dyingJob.id]);
    expect(await lockOf(dyingJob)).toBeNull();
    expect(await lockOf(busyJob)).toBe(`${busy.worker.id}:0`);
    expect(await lockOf(retakenJob)).toBe(`${busy.worker.id}:9`);
    // The stalled check, run now, puts the dead worker's job back at the head of the queue, taken
    // over once, while its lock had about two minutes to go.
    await runStalledCheck(watcher.worker);
    expect(await queue.getJobState(dyingJob.id!)).toBe('waiting');
    expect((await queue.getJob(dyingJob.id!))!.stalledCounter).toBe(1);
    expect(await queue.getJobState(busyJob.id!)).toBe('active');
    expect(await queue.getJobState(retakenJob.id!)).toBe('active');
  });

  it('a watcher whose own connection is not named judges no one', async () => {
    const dying = await workerProcess();
    const watcher = await workerProcess();
    await queue.add('d', { n: 4 });
    const job = await dying.take();
    // Its connection lost its name (reconnected before naming itself, or never named).
    const unnamed = namedConnection('');
    const ownIds = [uniqueName('watcher')];
    const deaths = createDeathWatch();
    const keys = keysOf(watcher.worker);
    expect(await lookForDeaths(unnamed, deaths, keys, ownIds)).toEqual([]);
    dying.heartbeat.disconnect();
    await eventually(
      async () =>
        !liveWorkerIds((await watcher.heartbeat.call('CLIENT', 'LIST', 'TYPE', 'normal')) as string).has(
          dying.worker.id,
        ),
      10_000,
      10,
    );
    expect(await lookForDeaths(unnamed, deaths, keys, ownIds)).toEqual([]);
    expect(await queue.getJobState(job.id!)).toBe('active');
  });
});
