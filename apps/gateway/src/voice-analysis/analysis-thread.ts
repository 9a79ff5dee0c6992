import { createHash } from 'node:crypto';
import os from 'node:os';
import { parentPort } from 'node:worker_threads';
import { analyseClone, type CloneLimits } from './clone-analysis';
import type { ThreadReply, ThreadRequest } from './analysis-pool';

/**
 * Entry of an analysis worker thread (`createAnalysisPool`): one job at a time. The sample bytes
 * arrive transferred and go back transferred with the outcome, so neither side copies them.
 */
// The lowest CPU priority for this thread (on Linux `setpriority(0)` applies to the calling thread
// only) and so for the ffmpeg processes it starts, which inherit it: on a busy machine the server's
// event loop keeps its core and analysis waits, not the other way round.
try {
  os.setPriority(19);
} catch {
  // not permitted on this platform: analysis then runs at normal priority
}

parentPort?.on('message', (request: ThreadRequest) => {
  const limits: CloneLimits = request.limits;
  const give = [...new Set(request.samples.map((s) => s.buffer as ArrayBuffer))];
  analyseClone(request.samples, limits)
    .then((outcome) => {
      const sha256 = request.samples.map((s) => createHash('sha256').update(s).digest('hex'));
      parentPort!.postMessage({ id: request.id, outcome, sha256, samples: request.samples } satisfies ThreadReply, give);
    })
    .catch((err: unknown) =>
      parentPort!.postMessage({ id: request.id, error: err instanceof Error ? err.message : String(err), samples: request.samples } satisfies ThreadReply, give),
    );
});
