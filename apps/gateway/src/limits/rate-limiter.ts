import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { LimitSubject } from './plan-limits';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds when the current window ends. */
  resetUnix: number;
  /** Seconds to wait before retrying, when refused. */
  retryAfter: number;
}

/** rate-limiter-flexible's key for a subject's window (`RateLimiterRedis`: `<keyPrefix>:<key>`); limits/admission.ts writes it too. */
export function rateWindowKey(prefix: string, subject: LimitSubject): string {
  return `${prefix}:rps:${subject.limit.rps}:${subject.key}`;
}

/** The decision for a window that counts `consumed` requests and ends in `msBeforeNext`. */
export function rateDecision(
  points: number,
  consumed: number,
  msBeforeNext: number,
  allowed: boolean,
  now: () => number = Date.now,
): RateDecision {
  const ms = Math.max(0, msBeforeNext);
  return {
    allowed,
    limit: points,
    remaining: Math.max(0, points - consumed),
    resetUnix: Math.ceil((now() + ms) / 1000),
    retryAfter: Math.max(1, Math.ceil(ms / 1000)),
  };
}

/**
 * Requests per second across all replicas: one fixed one-second window per subject in Redis
 * (rate-limiter-flexible's atomic increment-with-expiry). If Redis fails, each replica falls back
 * to an in-memory limiter with the same numbers (the library's insurance limiter), so an outage
 * neither opens the gates nor stops all traffic.
 */
export function createRateLimiter(redis: Redis, prefix: string, now: () => number = Date.now) {
  const limiters = new Map<number, RateLimiterRedis>();
  const limiterFor = (points: number) => {
    let limiter = limiters.get(points);
    if (!limiter) {
      limiter = new RateLimiterRedis({
        storeClient: redis,
        keyPrefix: `${prefix}:rps:${points}`,
        points,
        duration: 1,
        insuranceLimiter: new RateLimiterMemory({ points, duration: 1 }),
      });
      limiters.set(points, limiter);
    }
    return limiter;
  };

  const toDecision = (points: number, res: RateLimiterRes, allowed: boolean): RateDecision =>
    rateDecision(points, points - res.remainingPoints, res.msBeforeNext, allowed, now);

  return {
    /** Counts one request against the subject's window; `allowed` false when it did not fit. */
    async consume(subject: LimitSubject): Promise<RateDecision> {
      const points = subject.limit.rps;
      try {
        return toDecision(points, await limiterFor(points).consume(subject.key, 1), true);
      } catch (err) {
        if (err instanceof RateLimiterRes) return toDecision(points, err, false);
        throw err;
      }
    },
    /**
     * Reads the subject's window without counting anything: the decision the next request would
     * get if the window is already spent, null while it still has room (or none is open).
     */
    async spent(subject: LimitSubject): Promise<RateDecision | null> {
      const points = subject.limit.rps;
      const res = await limiterFor(points).get(subject.key);
      if (!res || res.consumedPoints < points) return null;
      return toDecision(points, res, false);
    },
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;
export type ConsumeRate = RateLimiter['consume'];
