import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { VoiceColour } from './voice-colour';

/** What the inference thread is started with (`piper-thread.ts`). */
export interface InferenceThreadConfig {
  modelPath: string;
  /** ONNX Runtime's intra-op threads for one inference. */
  threads: number;
}

/** One inference as it crosses to the thread: the phoneme ids and the model's three scales. */
export interface InferenceRequest {
  id: number;
  ids: BigInt64Array;
  scales: Float32Array;
  /** The speaker id (`sid`) of a multi-speaker model; absent for a single-speaker one. */
  speaker?: number;
  /** The voice colour the thread applies to the audio right after the inference (voice-colour.ts). */
  colour?: VoiceColour & { sampleRate: number };
}

/**
 * Asks the thread to end by itself: it finishes the inference it is running, releases the session
 * and closes its port. Never `terminate()` a thread under an inference: when ONNX Runtime's native
 * run returns into a terminating thread, its binding throws a C++ exception that nothing catches,
 * and the whole process aborts (SIGABRT).
 */
export interface CloseRequest {
  close: true;
}

/** The thread's answer: the audio as 16-bit PCM (moved, not copied), or why there is none. */
export type InferenceReply = { id: number; pcm: Int16Array<ArrayBuffer> } | { id: number; error: string };

/** The thread's first message: its session is loaded, or why it is not. */
type ThreadStatus = { ready: true } | { ready: false; error: string };

/** The model run on a thread of its own: one inference at a time, in the order asked. */
export interface PiperInference {
  /** 16-bit PCM at the model's rate; `speaker` only for a multi-speaker model; `colour` applied on the thread. */
  run(
    ids: BigInt64Array,
    scales: Float32Array,
    speaker?: number,
    colour?: InferenceRequest['colour'],
  ): Promise<Int16Array>;
  close(): Promise<void>;
}

// Resolved from src/ (tests) and dist/ alike: the thread always runs the built file.
const THREAD_ENTRY = path.resolve(__dirname, '..', 'dist', 'piper-thread.js');

interface Call {
  resolve: (pcm: Int16Array) => void;
  reject: (err: Error) => void;
}

interface Live {
  worker: Worker;
  pending: Map<number, Call>;
  dead: boolean;
  /** Fails what the thread still holds, asks it to end (`CloseRequest`) and waits until it has. */
  close(): Promise<void>;
}

let holder: Promise<void> | undefined;

/**
 * ONNX Runtime's native binding kept loaded for the process's life by an idle thread of its own:
 * loaded only by inference threads, it is unloaded with the last of them, and every thread started
 * after that (a model that failed to load, a thread lost and started again) fails with "Module did
 * not self-register". A thread, not this one: the caller's context may be torn down before the
 * process ends (a test runner's sandbox, for one). The thread is unreferenced and idle: it never keeps
 * the process alive, and with no run of its own it can be ended at exit (see `CloseRequest`).
 */
function holdOnnxRuntime(): Promise<void> {
  holder ??= new Promise<void>((resolve, reject) => {
    const binding = JSON.stringify(require.resolve('onnxruntime-node'));
    const thread = new Worker(
      `require(${binding}); require('node:worker_threads').parentPort.postMessage('held'); setInterval(() => {}, 1 << 30);`,
      { eval: true },
    );
    thread.unref();
    thread.once('message', () => resolve());
    thread.once('error', (err) => {
      holder = undefined;
      reject(err);
    });
  });
  return holder;
}

/**
 * Starts the thread and waits until its session is loaded, so a model that cannot load fails here
 * with ONNX Runtime's reason. A thread that dies later fails the inferences it held and is started
 * again by the next one.
 */
export async function startPiperInference(config: InferenceThreadConfig): Promise<PiperInference> {
  await holdOnnxRuntime();
  let starting: Promise<Live> | undefined;
  const thread = (): Promise<Live> => {
    if (starting) return starting;
    // Forgotten when its thread is lost or fails to load (and only then: a newer one may be starting).
    const forget = () => {
      if (starting === spawning) starting = undefined;
    };
    const spawning: Promise<Live> = spawn(config, forget).catch((err: unknown) => {
      forget();
      throw err;
    });
    starting = spawning;
    return spawning;
  };
  await thread();
  let nextId = 0;
  return {
    async run(ids, scales, speaker, colour) {
      const live = await thread();
      if (live.dead) throw new Error('the neural inference thread exited');
      return new Promise<Int16Array>((resolve, reject) => {
        const id = nextId++;
        live.pending.set(id, { resolve, reject });
        // Held open only while it has work: an idle thread does not keep the process alive.
        live.worker.ref();
        live.worker.postMessage({
          id,
          ids,
          scales,
          ...(speaker !== undefined ? { speaker } : {}),
          ...(colour ? { colour } : {}),
        } satisfies InferenceRequest);
      });
    },
    async close() {
      const live = await starting?.catch(() => undefined);
      await live?.close();
    },
  };
}

function spawn(config: InferenceThreadConfig, onLost: () => void): Promise<Live> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(THREAD_ENTRY, { workerData: config });
    const exited = new Promise<void>((done) => worker.once('exit', () => done()));
    const live: Live = {
      worker,
      pending: new Map(),
      dead: false,
      async close() {
        if (!live.dead) {
          lost('was closed');
          // Held open until the thread has ended: a process that exited meanwhile would end it under its run.
          worker.ref();
          worker.postMessage({ close: true } satisfies CloseRequest);
        }
        await exited;
      },
    };
    const lost = (why: string) => {
      if (live.dead) return;
      live.dead = true;
      onLost();
      const err = new Error(`the neural inference thread ${why}`);
      reject(err);
      for (const call of live.pending.values()) call.reject(err);
      live.pending.clear();
    };
    worker.on('message', (message: InferenceReply | ThreadStatus) => {
      if ('ready' in message) {
        if (message.ready) {
          worker.unref();
          resolve(live);
        } else {
          reject(new Error(message.error));
          void worker.terminate();
        }
        return;
      }
      const call = live.pending.get(message.id);
      live.pending.delete(message.id);
      if (live.pending.size === 0 && !live.dead) worker.unref();
      if ('pcm' in message) call?.resolve(message.pcm);
      else call?.reject(new Error(`neural inference failed: ${message.error}`));
    });
    worker.on('error', (err) => lost(`failed: ${err.message}`));
    worker.on('exit', (code) => lost(`exited (code ${code})`));
  });
}
