import type { NextFunction, Request, Response } from 'express';
import type { Identity } from '@platform/identity';
import type { Logger } from '@platform/logger';
import { sendEdgeError, type EdgeError, type Surface } from '../routing/edge-errors';
import { clientAddress } from './client-address';
import type { AcquireSlot, SlotLease } from './concurrency';
import { limitSubject, type PlanTable } from './plans';
import type { ConsumeRate, RateDecision } from './rate-limiter';

export interface PlanLimiter {
  /** Rate then concurrency for one request; null lease with the decision when refused. */
  admit(identity: Identity, ip: string): Promise<{ decision: RateDecision; lease: SlotLease | null; reason?: 'rate' | 'concurrency' }>;
}

export function createPlanLimiter(table: PlanTable, consumeRate: ConsumeRate, acquireSlot: AcquireSlot): PlanLimiter {
  return {
    async admit(identity, ip) {
      const subject = limitSubject(identity, ip, table);
      // Both checks at once (one Redis round trip of latency instead of two); a slot taken for a
      // request the rate refuses is given back at once.
      const [rate, slot] = await Promise.allSettled([consumeRate(subject), acquireSlot(subject)]);
      // Concurrency state unreadable: do not refuse for it (the rate limit still holds).
      const lease = slot.status === 'fulfilled' ? slot.value : { release: async () => undefined };
      if (rate.status === 'rejected') {
        await lease?.release();
        throw rate.reason;
      }
      const decision = rate.value;
      if (!decision.allowed) {
        await lease?.release();
        return { decision, lease: null, reason: 'rate' };
      }
      if (!lease) return { decision, lease: null, reason: 'concurrency' };
      return { decision, lease };
    },
  };
}

export function rateLimitHeaders(decision: RateDecision): Record<string, string> {
  return {
    'x-ratelimit-limit': String(decision.limit),
    'x-ratelimit-remaining': String(decision.remaining),
    'x-ratelimit-reset': String(decision.resetUnix),
  };
}

export function setRateLimitHeaders(res: Response, decision: RateDecision): void {
  for (const [name, value] of Object.entries(rateLimitHeaders(decision))) res.setHeader(name, value);
}

/** The 429 every limit answers with, in the route's shape once given to `sendEdgeError`. */
export function tooManyRequests(message: string, retryAfterSeconds: number): EdgeError {
  return { status: 429, code: 'rate_limited', message, headers: { 'retry-after': String(retryAfterSeconds) } };
}

/**
 * Plan limits for a route group: sets the X-RateLimit-* headers on every response (also errors),
 * answers 429 with Retry-After in the surface's shape when the rate or concurrency is exceeded,
 * and holds a concurrency slot until the response is finished or the client goes away.
 */
export function limitRequests(limiter: PlanLimiter, surface: Surface, logger: Logger) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const identity = req.identity;
    if (!identity) {
      next();
      return;
    }
    let admitted;
    try {
      admitted = await limiter.admit(identity, clientAddress(req));
    } catch (err) {
      // Both the shared and the insurance limiter failed: let the request through rather than
      // turn a limiter fault into an outage, and say so loudly.
      logger.error({ err }, 'rate limiter failed; request admitted unlimited');
      next();
      return;
    }
    setRateLimitHeaders(res, admitted.decision);
    if (!admitted.lease) {
      sendEdgeError(
        res,
        surface,
        admitted.reason === 'concurrency'
          ? tooManyRequests('too many concurrent requests for your plan; retry when one finishes', 1)
          : tooManyRequests(`too many requests: the plan allows ${admitted.decision.limit} per second`, admitted.decision.retryAfter),
      );
      return;
    }
    const lease = admitted.lease;
    res.once('close', () => void lease.release());
    next();
  };
}
