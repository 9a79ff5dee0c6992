import type { Redis } from 'ioredis';
import { createLogger } from '@platform/logger';
import { audioStreamKey, ownerKey, type HistoryRecord, type SynthesisJobData } from '@platform/speech-jobs';
import { connectRedis } from '@platform/stores';
import { eventually, stackEnv, uniqueName } from '@platform/testing';
import { processJob, type ProcessDeps } from '../src/synthesis/process-job';
import { synthesisJob } from './synthesis-job';

let redis: Redis;
const prefix = uniqueName('process-job');
beforeAll(async () => {
  redis = await connectRedis(stackEnv().REDIS_URL);
});
afterAll(async () => {
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

function job(): SynthesisJobData {
  return synthesisJob(prefix, { recordHistory: true });
}

function deps(records: HistoryRecord[], worker: string, takeovers: number): ProcessDeps {
  return {
    redis,
    logger: createLogger('process-job-test', 'silent'),
    queue: 'synthesis',
    enqueuedAt: Date.now(),
    recordHistory: async (record) => {
      records.push(record);
    },
    attempt: { worker, takeovers },
  };
}

describe('a job the queue hands out again after it ended', () => {
  it('(its worker was taken for dead at the very end) is not run again once the gateway has deleted its stream', async () => {
    const data = job();
    const records: HistoryRecord[] = [];
    expect(await processJob(data, deps(records, 'host:1', 0))).toBe('complete');
    expect(records.map((r) => r.state)).toEqual(['complete']);
    // The gateway read the whole stream and deleted it.
    expect(await redis.del(audioStreamKey(prefix, data.jobId))).toBe(1);

    expect(await processJob(data, deps(records, 'host:2', 1))).toBe('duplicate');
    // Nothing rendered, written or recorded a second time; the owner key still says it ended.
    expect(await redis.exists(audioStreamKey(prefix, data.jobId))).toBe(0);
    expect(records).toHaveLength(1);
    expect(await redis.get(ownerKey(prefix, data.jobId))).toBe('ended');
  }, 60_000);
});

describe('a job taken over right after its last frame', () => {
  it('is recorded by the attempt that wrote the last frame (the new owner may find the stream already deleted)', async () => {
    const data = job();
    const records: HistoryRecord[] = [];
    // Another attempt claims the job just as this one ends it: the queue took this worker for dead
    // after its last frame (its lock lapsed on a busy machine).
    const owner = ownerKey(prefix, data.jobId);
    const takenAtTheEnd = new Proxy(redis, {
      get(target, name, receiver) {
        if (name !== 'eval') return Reflect.get(target, name, receiver) as unknown;
        return async (script: string, ...args: (string | number)[]) => {
          if (script.includes("'PX'")) await target.set(owner, 'host:2#1');
          return target.eval(script, ...(args as [number, ...string[]]));
        };
      },
    });
    const outcome = await processJob(data, { ...deps(records, 'host:1', 0), redis: takenAtTheEnd });
    expect(outcome).toBe('superseded');
    expect(records.map((r) => r.state)).toEqual(['complete']);
    expect(await redis.get(owner)).toBe('host:2#1');
  }, 60_000);
});

describe('a job whose worker dies while recording its history', () => {
  it('is not marked ended before its history is recorded, so the attempt that takes it over records it', async () => {
    const data = job();
    const owner = ownerKey(prefix, data.jobId);
    const seenByRecord: (string | null)[] = [];
    // The first attempt's recording never finishes: its worker died in the middle of it.
    let dead = false;
    const dying: ProcessDeps = {
      ...deps([], 'host:1', 0),
      recordHistory: async () => {
        seenByRecord.push(await redis.get(owner));
        dead = true;
        await new Promise(() => undefined);
      },
    };
    void processJob(data, dying);
    await eventually(() => dead, 30_000, 5);
    // It had written every frame, and had not marked the job ended.
    expect(seenByRecord).toEqual(['host:1#0']);
    expect(await redis.xlen(audioStreamKey(prefix, data.jobId))).toBeGreaterThan(1);

    // The queue hands the job to another worker, which finds the last frame written and records the job.
    const records: HistoryRecord[] = [];
    expect(await processJob(data, deps(records, 'host:2', 1))).toBe('complete');
    expect(records.map((r) => [r.historyItemId, r.state])).toEqual([[data.jobId, 'complete']]);
    expect(records[0]!.audio.length).toBeGreaterThan(0);
    expect(await redis.get(owner)).toBe('ended');
  }, 60_000);
});
