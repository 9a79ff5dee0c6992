import type { Logger } from '@platform/logger';

/**
 * Gives back character reservations nobody will settle. The gateway reserves characters before a
 * job and settles them when it has relayed the audio; a gateway that dies in between (SIGKILL, a
 * crashed machine) leaves its reservations counted. Every worker runs this sweep on a timer
 * (`SPEECH_RESERVATION_SWEEP_MS`); a reservation older than `SPEECH_RESERVATION_MAX_AGE_MS` is
 * released in full. Sweeps of several workers may overlap: settling is idempotent per job, so a
 * reservation is released once.
 */
interface StaleReservationSweeper {
  /** Runs one sweep now (also what the timer does); resolves to the reservations released. */
  sweep(): Promise<number>;
  /** Stops the timer and waits for a sweep in progress. */
  stop(): Promise<void>;
}

interface SweeperDeps {
  /** `releaseStaleReservations(store, olderThanMs)` of libs/speech-store, bound to the store. */
  release(olderThanMs: number): Promise<number>;
  logger: Logger;
  /** Time between sweeps; 0 turns the timer off. */
  intervalMs: number;
  /** A reservation older than this is taken as abandoned. */
  maxAgeMs: number;
}

export function startStaleReservationSweeper(deps: SweeperDeps): StaleReservationSweeper {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<number> | undefined;
  let stopped = false;

  const sweep = (): Promise<number> => {
    // One sweep at a time per process; a caller during a sweep shares its result.
    running ??= deps
      .release(deps.maxAgeMs)
      .then(
        (released) => {
          if (released > 0)
            deps.logger.warn({ released, maxAgeMs: deps.maxAgeMs }, 'released stale character reservations');
          return released;
        },
        (err: unknown) => {
          deps.logger.error({ err }, 'releasing stale character reservations failed');
          return 0;
        },
      )
      .finally(() => {
        running = undefined;
      });
    return running;
  };

  const schedule = () => {
    if (stopped || deps.intervalMs <= 0) return;
    // A chain of timeouts, not an interval: a slow sweep never overlaps the next one.
    timer = setTimeout(() => void sweep().then(schedule), deps.intervalMs);
    timer.unref();
  };
  schedule();

  return {
    sweep,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
