import { Counter, Histogram, metricsRegistry } from '@platform/metrics';

/**
 * What listeners of speech streams heard, and the speech requests turned away: the metrics behind
 * the underrun, refusal and cut alerts (docs/operations.md "Metrics" and "Alerts"). Every series is
 * declared at 0 from boot, so an alert rule's expression has data (and the metric names exist on
 * `/metrics`) before the first stream.
 */

/** The streams a listener plays as they arrive: `/stream`, `/stream/with-timestamps`, a stream-input (WebSocket) session. */
const STREAM_SURFACES = ['stream', 'stream_timestamps', 'websocket'] as const;
export type StreamSurface = (typeof STREAM_SURFACES)[number];

/** Why a speech request was turned away before any audio: no worker started it within the wait bound, or the gateway was shutting down. */
const REFUSAL_REASONS = ['queue_wait', 'shutdown'] as const;
type RefusalReason = (typeof REFUSAL_REASONS)[number];

/**
 * Why a stream ended with an error after its first audio: its workers were lost and the resumes
 * spent (`worker_lost`), the engine failed (`synthesis_error`), the worker cancelled it
 * (`cancelled`), no frame came within the frame timeout (`timeout`), the gateway's shutdown grace
 * ended (`shutdown`), or the pipeline failed otherwise (Redis: `pipeline`).
 */
const CUT_REASONS = ['worker_lost', 'synthesis_error', 'cancelled', 'timeout', 'shutdown', 'pipeline'] as const;
export type CutReason = (typeof CUT_REASONS)[number];

/** A stream counts as an underrun when its listener heard a silence longer than this: below it is timer noise, which any player's buffer absorbs. */
const UNDERRUN_MIN_SECONDS = 0.02;

const registers = [metricsRegistry];

const underruns = new Counter({
  name: 'speech_stream_underruns_total',
  help: 'Speech streams whose listener heard a silence after the first audio (the audio delivered fell behind the wall time since the first audio)',
  labelNames: ['surface'],
  registers,
});

const longestSilence = new Histogram({
  name: 'speech_stream_longest_silence_seconds',
  help: 'The longest silence a listener heard after the first audio, one observation per stream that had audio (0 when none)',
  labelNames: ['surface'],
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 2.5, 5, 10],
  registers,
});

const refused = new Counter({
  name: 'speech_requests_refused_total',
  help: 'Speech requests and stream-input sessions refused with 503 (or close 1013) before any audio, by reason',
  labelNames: ['reason'],
  registers,
});

const cut = new Counter({
  name: 'speech_streams_cut_total',
  help: 'Speech streams that ended with an error after their first audio (an HTTP 200 that failed), by surface and reason',
  labelNames: ['surface', 'reason'],
  registers,
});

for (const surface of STREAM_SURFACES) {
  underruns.inc({ surface }, 0);
  longestSilence.zero({ surface });
  for (const reason of CUT_REASONS) cut.inc({ surface, reason }, 0);
}
for (const reason of REFUSAL_REASONS) refused.inc({ reason }, 0);

/** One stream that had audio, as its listener heard it. */
export function recordStreamHeard(surface: StreamSurface, longestSilenceSeconds: number): void {
  longestSilence.observe({ surface }, longestSilenceSeconds);
  if (longestSilenceSeconds > UNDERRUN_MIN_SECONDS) underruns.inc({ surface });
}

export function countRefusal(reason: RefusalReason): void {
  refused.inc({ reason });
}

export function countCut(surface: StreamSurface, reason: CutReason): void {
  cut.inc({ surface, reason });
}
