import { SpeechError } from '@platform/errors';

/** Ends an admitted clone request's hold. Safe to call more than once. */
type LeaveClone = () => void;

export interface CloneAdmission {
  /** Admits a voice upload of the account (throws 429 `too_many_requests` when it has too many in progress). */
  enter(accountId: string): LeaveClone;
}

/**
 * Voice uploads in progress per account on this replica, from before the body is read until the
 * voice is stored: one account cannot hold several 40 MB uploads in memory or the workers' analysis queue.
 */
export function createCloneAdmission(perAccount: number): CloneAdmission {
  const inProgress = new Map<string, number>();
  return {
    enter(accountId) {
      const current = inProgress.get(accountId) ?? 0;
      if (current >= perAccount) {
        throw new SpeechError(
          429,
          'too_many_requests',
          `At most ${perAccount} voice upload${perAccount === 1 ? '' : 's'} of an account can be processed at once; try again when the current one is done.`,
        );
      }
      inProgress.set(accountId, current + 1);
      let left = false;
      return () => {
        if (left) return;
        left = true;
        const now = (inProgress.get(accountId) ?? 1) - 1;
        if (now > 0) inProgress.set(accountId, now);
        else inProgress.delete(accountId);
      };
    },
  };
}
