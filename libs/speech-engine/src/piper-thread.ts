import { parentPort, workerData } from 'node:worker_threads';
import * as ort from 'onnxruntime-node';
import type { CloseRequest, InferenceReply, InferenceRequest, InferenceThreadConfig } from './piper-inference';
import { applyVoiceColour } from './voice-colour';

/**
 * Entry of the neural model's inference thread (`piper-inference.ts`). ONNX Runtime's Node binding
 * runs a session synchronously on the calling thread (its `run` only defers the call), so on the
 * worker's main thread one piece's inference (about a second) would stall the event loop: the
 * queue's lock renewals, health checks and Redis replies with it. Here it stalls only this thread.
 */
const config = workerData as InferenceThreadConfig;
const port = parentPort!;

async function main(): Promise<void> {
  const session = await ort.InferenceSession.create(config.modelPath, {
    intraOpNumThreads: config.threads,
    // The graph is one chain of operators: a second (inter-op) pool would only add threads.
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  });
  const running = new Set<Promise<void>>();
  port.on('message', (message: InferenceRequest | CloseRequest) => {
    if ('close' in message) {
      void end(session, running);
      return;
    }
    const answered = infer(session, message).then((reply) =>
      port.postMessage(reply, 'pcm' in reply ? [reply.pcm.buffer] : []),
    );
    running.add(answered);
    void answered.finally(() => running.delete(answered));
  });
  port.postMessage({ ready: true });
}

/** Ends the thread by itself once no inference is running (see `CloseRequest` for why not `terminate()`). */
async function end(session: ort.InferenceSession, running: Set<Promise<void>>): Promise<void> {
  await Promise.allSettled(running);
  await session.release();
  port.close();
}

async function infer(session: ort.InferenceSession, request: InferenceRequest): Promise<InferenceReply> {
  try {
    const { ids, scales } = request;
    const result = await session.run({
      input: new ort.Tensor('int64', ids, [1, ids.length]),
      input_lengths: new ort.Tensor('int64', BigInt64Array.from([BigInt(ids.length)]), [1]),
      scales: new ort.Tensor('float32', scales, [3]),
      // A multi-speaker model's speaker (Piper's `sid`); a single-speaker model has no such input.
      ...(request.speaker !== undefined
        ? { sid: new ort.Tensor('int64', BigInt64Array.from([BigInt(request.speaker)]), [1]) }
        : {}),
    });
    const output = result.output ?? Object.values(result)[0];
    const audio = output?.data;
    if (!(audio instanceof Float32Array)) return { id: request.id, error: 'the model produced no audio' };
    const pcm = new Int16Array(audio.length);
    for (let i = 0; i < audio.length; i++) pcm[i] = Math.max(-32768, Math.min(32767, Math.round(audio[i]! * 32767)));
    // Coloured here, off every event loop that serves requests (the inference already holds this thread).
    const { colour } = request;
    // The colour's output has a buffer of its own (or is `pcm`): either is transferred, not copied.
    return { id: request.id, pcm: colour ? applyVoiceColour(pcm, colour, colour.sampleRate) : pcm };
  } catch (err) {
    return { id: request.id, error: err instanceof Error ? err.message : String(err) };
  }
}

main().catch((err: unknown) =>
  port.postMessage({ ready: false, error: err instanceof Error ? err.message : String(err) }),
);
