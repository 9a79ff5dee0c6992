/** Counters the worker exposes on `GET /metrics` (its health port), for operators and tests. */
export interface WorkerMetrics {
  jobsStarted: number;
  jobsCompleted: number;
  jobsCancelled: number;
  jobsFailed: number;
  jobsExpired: number;
  charactersSynthesised: number;
  audioSecondsProduced: number;
  synthesisSeconds: number;
}

export function createMetrics(): WorkerMetrics {
  return {
    jobsStarted: 0,
    jobsCompleted: 0,
    jobsCancelled: 0,
    jobsFailed: 0,
    jobsExpired: 0,
    charactersSynthesised: 0,
    audioSecondsProduced: 0,
    synthesisSeconds: 0,
  };
}
