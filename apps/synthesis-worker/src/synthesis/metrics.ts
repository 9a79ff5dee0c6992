import { Counter, Gauge, Histogram, metricsRegistry } from '@platform/metrics';
import { modelCatalogue } from '@platform/speech-engine';
import type { JobOutcome } from './process-job';

/**
 * The worker's own Prometheus metrics (served on METRICS_PORT with the process's default ones;
 * names and labels are the contract docs/operations.md lists and the dashboards and alerts read).
 * Module singletons on the process registry, as every app's metrics are (docs/architecture.md "A
 * metric"): the code that counts imports `workerMetrics`.
 */
interface WorkerMetrics {
  /**
   * An attempt at a job began: every job this worker takes from the queue, counted once before it
   * ends once (`jobEnded`), so started minus ended (the jobs in hand) never goes negative.
   * `waitedSeconds`: how long a first attempt waited in the queue (absent for a takeover).
   */
  jobStarted(job: { queue: string; model: string; waitedSeconds?: number }): void;
  /** An attempt ended (`runSeconds` of synthesis); a failed one with its reason. */
  jobEnded(job: { model: string; outcome: JobOutcome; runSeconds: number; reason?: FailureReason }): void;
  /**
   * The queue failed a job lost more often than its backstop allows (main.ts) and this worker ended
   * its stream: an attempt started and failed (reason `lost`) at once.
   */
  jobLost(job: { model: string }): void;
  /** An attempt resumed a job taken over from a lost worker. */
  takeover(job: { model: string }): void;
  /** The resumed job's stall: from the lost worker's last frame to this attempt's first. */
  takeoverStall(job: { model: string; seconds: number }): void;
  /** A completed job's characters and the audio they made (for the real-time factor). */
  jobSynthesised(job: { model: string; characters: number; audioSeconds: number; runSeconds: number }): void;
  /** The worker's real-time slots (realtime-capacity.ts), set once at boot. */
  realtimeSlots(slots: number): void;
  /** A job took (+1) or gave back (-1) one of the slots. */
  slotsInUse(change: 1 | -1): void;
}

/** Why an attempt failed: `lost` (taken over too often without progress, or past the queue's backstop), `engine`, `model_unavailable`, `resume_mismatch`. */
export const FAILURE_REASONS = ['lost', 'engine', 'model_unavailable', 'resume_mismatch'] as const;
export type FailureReason = (typeof FAILURE_REASONS)[number];

/** Every model a job may name (the neural one too: a worker without its voice fails such a job as `model_unavailable`). */
const ALL_MODELS = modelCatalogue({ neural: true }).map((m) => m.model_id);

/** The decision list's outcome names (`complete` is the job's state, `completed` the metric's value). */
const OUTCOME_LABEL: Record<JobOutcome, string> = {
  complete: 'completed',
  failed: 'failed',
  cancelled: 'cancelled',
  expired: 'expired',
  superseded: 'taken_over',
  duplicate: 'duplicate',
  'handed-over': 'handed_over',
};

/** Seconds: queue waits and runs from milliseconds to the minutes a 5 000-character text takes. */
const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
/** Synthesis time over audio time: below 1 is faster than real time. */
const REAL_TIME_FACTOR = [0.01, 0.025, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 5];

const registers = [metricsRegistry];
const wait = new Histogram({
  name: 'synthesis_job_wait_seconds',
  help: 'Time a synthesis job waited in the queue before a worker took it',
  labelNames: ['queue', 'model'],
  buckets: SECONDS,
  registers,
});
const run = new Histogram({
  name: 'synthesis_job_run_seconds',
  help: 'Time a worker spent on a synthesis job, by outcome',
  labelNames: ['model', 'outcome'],
  buckets: SECONDS,
  registers,
});
const jobs = new Counter({
  name: 'synthesis_jobs_total',
  help: 'Synthesis jobs ended, by outcome (completed, failed, cancelled by the client, expired before starting, taken_over by another worker while still running, duplicate: handed out again after it had ended, handed_over: put back in the queue by a draining worker for another to continue)',
  labelNames: ['model', 'outcome'],
  registers,
});
const failures = new Counter({
  name: 'synthesis_job_failures_total',
  help: 'Failed synthesis jobs by reason (lost: taken over more than SYNTHESIS_MAX_RESUMES times in a row without new audio; engine; model_unavailable; resume_mismatch)',
  labelNames: ['model', 'reason'],
  registers,
});
const takeovers = new Counter({
  name: 'synthesis_takeovers_total',
  help: 'Synthesis jobs this worker resumed after their worker was lost',
  labelNames: ['model'],
  registers,
});
const takeoverStall = new Histogram({
  name: 'synthesis_takeover_stall_seconds',
  help: "Time from a lost worker's last frame of a job to the first frame of the attempt that took it over",
  labelNames: ['model'],
  buckets: [0.25, 0.5, 1, 1.5, 2, 2.5, 3, 5, 10, 30],
  registers,
});
const started = new Counter({
  name: 'synthesis_jobs_started_total',
  help: 'Synthesis jobs a worker took from the queue and started (started minus ended: the jobs in hand)',
  labelNames: ['model'],
  registers,
});
const characters = new Counter({
  name: 'synthesis_characters_total',
  help: 'Characters of the completed synthesis jobs (their texts, as charged)',
  labelNames: ['model'],
  registers,
});
const audio = new Counter({
  name: 'synthesis_audio_seconds_total',
  help: 'Seconds of audio the completed synthesis jobs made',
  labelNames: ['model'],
  registers,
});
const realTime = new Histogram({
  name: 'synthesis_engine_real_time_factor',
  help: 'Synthesis time over the duration of the audio made, per completed job (below 1: faster than real time)',
  labelNames: ['model'],
  buckets: REAL_TIME_FACTOR,
  registers,
});
const slots = new Gauge({
  name: 'synthesis_worker_realtime_slots',
  help: 'Streams this worker keeps real-time: the jobs it runs at once (configured or calibrated at boot)',
  registers,
});
const inUse = new Gauge({
  name: 'synthesis_worker_realtime_slots_in_use',
  help: 'Real-time slots held by running jobs; at the slots, new jobs wait in the queue',
  registers,
});
// The alert rules' and the dashboard's series exist at 0 from boot, so `rate()` has data (and
// the alerts a baseline) before the first takeover or failure.
for (const model of ALL_MODELS) {
  takeovers.inc({ model }, 0);
  takeoverStall.zero({ model });
  for (const reason of FAILURE_REASONS) failures.inc({ model, reason }, 0);
}
export const workerMetrics: WorkerMetrics = {
  realtimeSlots(count) {
    slots.set(count);
  },
  slotsInUse(change) {
    inUse.inc(change);
  },
  jobStarted({ queue, model, waitedSeconds }) {
    started.inc({ model });
    if (waitedSeconds !== undefined) wait.observe({ queue, model }, Math.max(0, waitedSeconds));
  },
  jobEnded({ model, outcome, runSeconds, reason }) {
    const label = OUTCOME_LABEL[outcome];
    jobs.inc({ model, outcome: label });
    if (outcome === 'failed') failures.inc({ model, reason: reason ?? 'engine' });
    if (outcome !== 'expired') run.observe({ model, outcome: label }, runSeconds);
  },
  jobLost({ model }) {
    started.inc({ model });
    jobs.inc({ model, outcome: 'failed' });
    failures.inc({ model, reason: 'lost' });
  },
  takeover({ model }) {
    takeovers.inc({ model });
  },
  takeoverStall({ model, seconds }) {
    takeoverStall.observe({ model }, Math.max(0, seconds));
  },
  jobSynthesised({ model, characters: count, audioSeconds, runSeconds }) {
    characters.inc({ model }, count);
    audio.inc({ model }, audioSeconds);
    if (audioSeconds > 0) realTime.observe({ model }, runSeconds / audioSeconds);
  },
};
