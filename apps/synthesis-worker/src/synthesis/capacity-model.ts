/**
 * The arithmetic of a worker's real-time slots, from what a listener hears (docs/decisions.md,
 * docs/operations.md "Real-time capacity"). A stream plays its first piece as soon as it is ready;
 * the pipeline starts rendering piece k+1 when piece k is ready, and piece k+1 is needed when piece
 * k has finished playing. So a stream never goes silent when every later piece renders within the
 * playing time of the piece before it. The tight spot is the second piece: the first is a few words
 * (about a second of audio) and the second the rest of the sentence, several times longer.
 */

/** One piece of a calibration stream: when its rendering started and ended, and what it holds. */
export interface PieceTiming {
  /** Wall-clock seconds from the start of its rendering to its audio being ready (colour and encoding included). */
  renderSeconds: number;
  /** Seconds its phonemes and inference took (the model's thread runs one inference at a time). */
  inferenceSeconds: number;
  /** Seconds of audio it holds. */
  audioSeconds: number;
}

/** N calibration streams started together: each one's pieces, and what the run cost the process. */
export interface CalibrationLevel {
  streams: PieceTiming[][];
  wallSeconds: number;
  /** CPU seconds of this process, every thread (child processes, eSpeak NG's, not included). */
  cpuSeconds: number;
}

interface SlotInputs {
  /** Cores this worker may use: its share of the machine (WORKER_CORES). */
  cores: number;
  /** Fraction of a piece's playing time the next piece's rendering may take (WORKER_REALTIME_SAFETY); the rest is headroom. */
  safety: number;
  /** Never more than this many jobs at once (WORKER_CONCURRENCY). */
  max: number;
}

/**
 * Seconds the rendering of the piece after `previous` takes when `streams` streams of this worker
 * started together, from one stream measured alone (its pieces and its cores in use while rendering):
 *
 * - the inference thread: it runs one inference at a time, in order of request, and every other
 *   stream has at most one piece rendering (the pipeline renders one piece ahead), so at most
 *   `streams − 1` inferences, each no longer than the longest measured, go before this one;
 * - the cores: this piece's rendering and one piece of each other stream (the longest measured)
 *   share the worker's cores, each needing its wall time × the cores one rendering keeps busy.
 *
 * The larger of the two, both upper estimates: the streams never render in a kinder phase than that.
 */
export function contendedRender(
  next: PieceTiming,
  alone: PieceTiming[],
  coresPerRender: number,
  streams: number,
  cores: number,
): number {
  const longestInference = Math.max(...alone.map((p) => p.inferenceSeconds));
  const longestRender = Math.max(...alone.map((p) => p.renderSeconds));
  const byThread = next.renderSeconds + (streams - 1) * longestInference;
  const byCores = cores > 0 ? (coresPerRender * (next.renderSeconds + (streams - 1) * longestRender)) / cores : 0;
  return Math.max(byThread, byCores);
}

/** Whether every later piece of `pieces`, rendered in `renderOf(piece)`, is ready within `safety` × the playing time of the piece before it. */
function keepsUp(pieces: PieceTiming[], safety: number, renderOf: (piece: PieceTiming) => number): boolean {
  return pieces.every((piece, k) => k === 0 || renderOf(piece) <= safety * pieces[k - 1]!.audioSeconds);
}

/**
 * The most streams, from 1 to `max`, whose later pieces the contention model says are ready before
 * the piece before them has played (with the `safety` headroom), from one stream measured alone.
 * One slot at least: a worker that cannot keep even one stream real-time still serves, one job at a time.
 */
export function realtimeSlots(alone: CalibrationLevel, inputs: SlotInputs): number {
  const pieces = alone.streams[0] ?? [];
  const coresPerRender = Math.max(1, alone.wallSeconds > 0 ? alone.cpuSeconds / alone.wallSeconds : 1);
  let slots = 1;
  for (let n = 2; n <= inputs.max; n++) {
    if (!keepsUp(pieces, inputs.safety, (piece) => contendedRender(piece, pieces, coresPerRender, n, inputs.cores)))
      break;
    slots = n;
  }
  return slots;
}

/** Whether every stream of a measured level kept up: each later piece rendered within `safety` × the playing time of the one before. */
export function levelKeptUp(level: CalibrationLevel, safety: number): boolean {
  return level.streams.every((pieces) => keepsUp(pieces, safety, (piece) => piece.renderSeconds));
}
