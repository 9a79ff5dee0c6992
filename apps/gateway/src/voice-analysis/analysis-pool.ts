import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { sampleFromData, type SampleData, type SampleDoc } from '@platform/speech-store';
import type { CloneLimits, CloneOutcome } from './clone-analysis';

/**
 * A job on a voice's samples: `kept` are stored samples of the voice (GridFS file ids as hex), which the
 * thread reads and analyses before the job's own; `files` names the job's samples, aligned with them, which
 * the thread stores as GridFS files named for `voiceId` once all of them are found to make a voice.
 */
export interface SampleStoring {
  voiceId: string;
  kept: { fileName: string; fileId: string }[];
  files: { fileName: string; mimeType: string }[];
}

/** The database the threads store samples in (`SampleStoring`), given to each thread as it starts. */
export interface SampleStoreConfig {
  mongoUrl: string;
  dbName: string;
}

/** One job as it crosses to a thread (analysis-thread.ts). */
export interface ThreadRequest {
  id: number;
  samples: Uint8Array[];
  limits: CloneLimits;
  store?: SampleStoring;
}

/**
 * Why a thread could not finish a job: the store cannot serve now (MongoDB without a primary or out of
 * reach), a kept sample's file is gone (another change of the voice dropped it meanwhile), or anything else.
 */
export type ThreadFailure = 'store_unavailable' | 'voice_changed' | 'failed';

/** A thread's answer: the outcome, with the samples it stored when it was asked to and they make a voice; or why it could not. */
export type ThreadReply = { id: number } & (
  { outcome: CloneOutcome; stored: SampleData[] } | { error: string; failure: ThreadFailure }
);

export interface AnalysisPoolOptions {
  /** Worker threads; each analyses one job at a time. */
  threads: number;
  /** Jobs that may wait for a thread; more are refused with `AnalysisPoolFull`. */
  maxQueued: number;
  /** A job still running after this long is abandoned and its thread replaced (default 120 000). */
  jobTimeoutMs?: number;
  /** Where jobs that ask for it store their samples; without it such a job fails. */
  sampleStore?: SampleStoreConfig;
}

export interface AnalysisResult {
  outcome: CloneOutcome;
  /**
   * The job's samples as stored (`SampleStoring`), in order, when the outcome is a voice; empty otherwise. The thread writes them, over its own connection and at its low priority: tens of
   * megabytes cut, serialised and hashed in the server process allocate enough to keep its garbage collector
   * pausing the event loop while they are written.
   */
  stored: SampleDoc[];
}

export interface AnalysisPool {
  /**
   * Analyses `store.kept` (when given) and `samples` together as one voice. The arrays passed are moved to
   * the thread, not copied: they are empty (detached) afterwards.
   */
  analyse(samples: readonly Uint8Array[], limits: CloneLimits, store?: SampleStoring): Promise<AnalysisResult>;
  /** Jobs running and waiting now. */
  load(): { running: number; queued: number };
  /** Jobs started since the pool was made. */
  started(): number;
  close(): Promise<void>;
}

/** Storing a job's samples failed because the store cannot serve now (MongoDB without a primary or out of reach). */
export class SampleStoreUnavailable extends Error {
  constructor(message: string) {
    super(`storing voice samples: ${message}`);
    this.name = 'SampleStoreUnavailable';
  }
}

/** A kept sample's file was gone when the thread came to read it: another change of the voice dropped it. */
export class VoiceChangedMeanwhile extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'VoiceChangedMeanwhile';
  }
}

function failureOf(reply: { error: string; failure: ThreadFailure }): Error {
  if (reply.failure === 'store_unavailable') return new SampleStoreUnavailable(reply.error);
  if (reply.failure === 'voice_changed') return new VoiceChangedMeanwhile(reply.error);
  return new Error(`voice analysis failed: ${reply.error}`);
}

/** The queue of waiting jobs is at its bound. */
export class AnalysisPoolFull extends Error {
  constructor() {
    super('the voice analysis queue is full');
    this.name = 'AnalysisPoolFull';
  }
}

interface Job {
  id: number;
  samples: Uint8Array[];
  limits: CloneLimits;
  store: SampleStoring | undefined;
  resolve(result: AnalysisResult): void;
  reject(err: Error): void;
}

interface Slot {
  worker: Worker;
  job: Job | null;
  timer: NodeJS.Timeout | null;
}

/**
 * The compiled thread entry. Resolved through the gateway's `dist` so that code loaded from the
 * TypeScript sources (the tests, from src/voice-analysis) starts the built thread as well: a worker
 * thread runs JavaScript only.
 */
const THREAD_ENTRY = path.resolve(__dirname, '..', '..', 'dist', 'voice-analysis', 'analysis-thread.js');

/** Each sample with an ArrayBuffer of its own, exactly its size, so it can be transferred. */
function ownBuffer(bytes: Uint8Array): Uint8Array {
  if (
    bytes.byteOffset === 0 &&
    bytes.byteLength === bytes.buffer.byteLength &&
    !(bytes.buffer instanceof SharedArrayBuffer)
  )
    return bytes;
  return Uint8Array.prototype.slice.call(bytes);
}

/**
 * A small pool of worker threads that decode and analyse clone samples (`analyseClone`) off the
 * event loop. Jobs beyond the threads wait in a bounded queue; past it, `analyse` rejects with
 * `AnalysisPoolFull` at once. A thread that crashes or overruns its job is ended and its job fails;
 * threads are started again as jobs need them.
 */
export function createAnalysisPool(options: AnalysisPoolOptions): AnalysisPool {
  if (!fs.existsSync(THREAD_ENTRY))
    throw new Error(`voice analysis thread ${THREAD_ENTRY} is missing: build the project (npm run build)`);
  const size = Math.max(1, options.threads);
  const jobTimeoutMs = options.jobTimeoutMs ?? 120_000;
  const queue: Job[] = [];
  const slots: Slot[] = [];
  let nextId = 1;
  let started = 0;
  let closed = false;

  function spawn(): Slot {
    const slot: Slot = {
      worker: new Worker(THREAD_ENTRY, { workerData: options.sampleStore ?? null }),
      job: null,
      timer: null,
    };
    // An idle thread does not keep the process alive (see `assign`).
    slot.worker.unref();
    slot.worker.on('message', (reply: ThreadReply) => {
      const job = slot.job;
      if (!job || job.id !== reply.id) return;
      unassign(slot);
      if ('outcome' in reply) job.resolve({ outcome: reply.outcome, stored: reply.stored.map(sampleFromData) });
      else job.reject(failureOf(reply));
      pump();
    });
    slot.worker.on('error', (err) => drop(slot, err));
    slot.worker.on('exit', (code) => drop(slot, new Error(`voice analysis thread exited with code ${code}`)));
    slots.push(slot);
    return slot;
  }

  function unassign(slot: Slot): void {
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = null;
    slot.job = null;
    slot.worker.unref();
  }

  /** The thread failed, exited or overran its job: it is ended and its job fails. */
  function drop(slot: Slot, err: Error): void {
    const index = slots.indexOf(slot);
    if (index === -1) return;
    slots.splice(index, 1);
    const job = slot.job;
    unassign(slot);
    slot.worker.removeAllListeners();
    slot.worker.on('error', () => undefined);
    void slot.worker.terminate();
    job?.reject(err);
    pump();
  }

  function assign(slot: Slot, job: Job): void {
    slot.job = job;
    started += 1;
    slot.timer = setTimeout(
      () => drop(slot, new Error(`voice analysis took longer than ${jobTimeoutMs} ms`)),
      jobTimeoutMs,
    );
    slot.timer.unref();
    // A job in hand keeps the process alive until it is answered.
    slot.worker.ref();
    const request: ThreadRequest = {
      id: job.id,
      samples: job.samples,
      limits: job.limits,
      ...(job.store ? { store: job.store } : {}),
    };
    slot.worker.postMessage(request, [...new Set(job.samples.map((s) => s.buffer as ArrayBuffer))]);
  }

  /** Hands waiting jobs to idle threads, starting threads up to the pool's size. */
  function pump(): void {
    if (closed) return;
    while (queue.length > 0) {
      const slot = slots.find((s) => s.job === null) ?? (slots.length < size ? spawn() : null);
      if (!slot) return;
      assign(slot, queue.shift()!);
    }
  }

  for (let i = 0; i < size; i += 1) spawn();

  return {
    analyse(samples, limits, store) {
      if (closed) return Promise.reject(new Error('the voice analysis pool is closed'));
      const busy = slots.length >= size && slots.every((s) => s.job !== null);
      if (busy && queue.length >= options.maxQueued) return Promise.reject(new AnalysisPoolFull());
      return new Promise<AnalysisResult>((resolve, reject) => {
        queue.push({ id: nextId++, samples: samples.map(ownBuffer), limits, store, resolve, reject });
        pump();
      });
    },
    load: () => ({ running: slots.filter((s) => s.job !== null).length, queued: queue.length }),
    started: () => started,
    async close() {
      closed = true;
      const gone = new Error('the voice analysis pool is closed');
      for (const job of queue.splice(0)) job.reject(gone);
      const ending = slots.splice(0);
      for (const slot of ending) {
        slot.job?.reject(gone);
        unassign(slot);
        slot.worker.removeAllListeners();
        slot.worker.on('error', () => undefined);
      }
      await Promise.allSettled(ending.map((slot) => slot.worker.terminate()));
    },
  };
}
