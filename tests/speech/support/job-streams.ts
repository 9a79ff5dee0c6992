import type { Redis } from 'ioredis';
import { decodeFrame, type ChunkFrame } from '@platform/speech-jobs';
import { eventually } from '@platform/testing';
import type { SpeechStack } from './speech-stack';

/** A frame of a job's stream as Redis holds it: when it was written (server clock) and by which worker. */
export interface StoredFrame {
  atMs: number;
  writer: string;
  frame: ChunkFrame;
}

/**
 * Follows a job's stream from its first entry on a connection of its own, recording every frame
 * with its writer (`w`) and Redis's time, until `stop()` (the gateway deletes the stream when done).
 */
export function followStream(redis: Redis, key: string): { frames: StoredFrame[]; stop(): Promise<void> } {
  const conn = redis.duplicate();
  const frames: StoredFrame[] = [];
  let stopped = false;
  const loop = (async () => {
    let lastId = '0';
    while (!stopped) {
      const reply = (await conn.xreadBuffer('COUNT', 100, 'BLOCK', 200, 'STREAMS', key, lastId)) as
        [Buffer, [Buffer, Buffer[]][]][] | null;
      for (const [, entries] of reply ?? []) {
        for (const [id, fields] of entries) {
          lastId = id.toString();
          const w = fields.findIndex((f, i) => i % 2 === 0 && f.toString() === 'w');
          frames.push({
            atMs: Number(lastId.split('-')[0]),
            writer: w >= 0 ? fields[w + 1]!.toString() : '',
            frame: decodeFrame(fields),
          });
        }
      }
    }
  })();
  return {
    frames,
    async stop() {
      stopped = true;
      await loop;
      conn.disconnect();
    },
  };
}

/** The job streams of the stack now: `newJobStreamKey` passes over them. */
export async function jobStreams(stack: SpeechStack): Promise<Set<string>> {
  return new Set(await stack.redis.keys(`${stack.prefix}:job:*:audio`));
}

/**
 * The stream of the job started after `existing` was taken (tests run one generation at a time),
 * once it exists. An earlier job's stream can outlive its response for a moment (the gateway
 * deletes it as it finishes), so it is passed over by name rather than assumed gone.
 */
export async function newJobStreamKey(stack: SpeechStack, existing: Set<string>): Promise<string> {
  let key = '';
  await eventually(
    async () => {
      key = (await stack.redis.keys(`${stack.prefix}:job:*:audio`)).find((k) => !existing.has(k)) ?? '';
      return key !== '';
    },
    30_000,
    20,
  );
  return key;
}
