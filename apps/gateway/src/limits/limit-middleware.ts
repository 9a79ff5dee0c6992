import type { NextFunction, Request, Response } from 'express';
import type { Identity } from '@platform/identity';
import type { Logger } from '@platform/logger';
import { planName } from '@platform/speech-store';
import { recordLimitRefusal } from '../metrics/gateway-metrics';
import type { RefuseCredential } from '../auth/authenticate-middleware';
import { revokedToken } from '../auth/authenticate';
import { sendEdgeError, type EdgeError, type Surface } from '../routing/edge-errors';
import { clientAddress } from './client-address';
import type { Admission, Admit } from './admission';
import type { AcquireSlot, SlotLease } from './concurrency';
import { limitSubject, type LimitSubject, type PlanTable } from './plan-limits';
import type { ConsumeRate, RateDecision } from './rate-limiter';

interface LimitAdmission {
  decision: RateDecision;
  lease: SlotLease | null;
  reason?: 'rate' | 'concurrency';
  /** Whose budget was charged, under which plan and limits: what a refusal names. */
  subject?: LimitSubject;
}

export interface PlanLimiter {
  /** Rate then concurrency for one request; null lease with the decision when refused. */
  admit(identity: Identity, ip: string): Promise<LimitAdmission>;
  /**
   * The same, for a request whose access token was verified with its revocation check deferred:
   * `revocationKey` (`auth:revoked:jti:<jti>`) is checked first, in the same Redis round trip.
   * `revoked` touches no limit; a failure to check throws (the token is not taken for unrevoked).
   */
  admitToken(
    identity: Identity,
    ip: string,
    revocationKey: string,
  ): Promise<({ revoked: false } & LimitAdmission) | { revoked: true }>;
}

export function createPlanLimiter(
  table: PlanTable,
  consumeRate: ConsumeRate,
  acquireSlot: AcquireSlot,
  admitInOneTrip?: Admit,
): PlanLimiter {
  // Rate and concurrency as two calls at once: the fallback when the one-trip script fails (the
  // rate limiter then falls back to its in-memory insurance limiter).
  const admitSeparately = async (subject: LimitSubject): Promise<LimitAdmission> => {
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
  };
  return {
    async admit(identity, ip) {
      const subject = limitSubject(identity, ip, table);
      if (!admitInOneTrip) return { ...(await admitSeparately(subject)), subject };
      let admission: Admission;
      try {
        admission = await admitInOneTrip(subject);
      } catch {
        // Redis failed: the two calls again, the rate limiter's in-memory insurance behind them.
        return { ...(await admitSeparately(subject)), subject };
      }
      if (admission.revoked) throw new Error('admission answered revoked without a revocation key');
      return { ...admission, subject };
    },
    async admitToken(identity, ip, revocationKey) {
      if (!admitInOneTrip) throw new Error('a deferred revocation check needs the one-trip admission');
      const subject = limitSubject(identity, ip, table);
      const admission = await admitInOneTrip(subject, revocationKey);
      return admission.revoked ? admission : { ...admission, subject };
    },
  };
}

function rateLimitHeaders(decision: RateDecision): Record<string, string> {
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
 * The 429 of a plan limit, saying which limit it is, the plan's number and when to retry (also in
 * Retry-After): the rate's next free slot, or 1 s for concurrency (a request in flight finishes).
 * The "N per second" wording is kept for clients that match on it.
 */
export function planLimitRefusal(admission: LimitAdmission): EdgeError {
  const subject = admission.subject;
  const plan = !subject
    ? 'your plan'
    : subject.plan === 'anonymous'
      ? 'a caller without credentials (per address)'
      : `the ${subject.plan} plan`;
  if (admission.reason === 'concurrency') {
    const most = subject ? ` ${subject.limit.concurrency}` : '';
    return tooManyRequests(
      `concurrent requests limit: ${plan} allows${most} at once; retry after 1 s, or when one of yours finishes`,
      1,
    );
  }
  const retryAfter = admission.decision.retryAfter;
  return tooManyRequests(
    `requests per second limit: ${plan} allows ${admission.decision.limit} per second; retry after ${retryAfter} s`,
    retryAfter,
  );
}

/**
 * Plan limits for a route group: sets the X-RateLimit-* headers on every response (also errors),
 * answers 429 with Retry-After in the surface's shape when the rate or concurrency is exceeded,
 * and holds a concurrency slot until the response is finished or the client goes away.
 */
export function limitRequests(
  limiter: PlanLimiter,
  surface: Surface,
  logger: Logger,
  refuseCredential: RefuseCredential,
) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const identity = req.identity;
    if (!identity) {
      next();
      return;
    }
    const revocation = req.tokenRevocation;
    const ip = clientAddress(req);
    let admitted;
    try {
      admitted = revocation
        ? await limiter.admitToken(identity, ip, revocation.key)
        : { revoked: false as const, ...(await limiter.admit(identity, ip)) };
    } catch (err) {
      if (revocation) {
        // The token's revocation could not be checked: it is not served unchecked.
        logger.error({ err }, 'revocation and limits check failed');
        sendEdgeError(res, surface, {
          status: 503,
          code: 'upstream_unavailable',
          message: 'authentication is temporarily unavailable',
          headers: { 'retry-after': '1' },
        });
        return;
      }
      // Both the shared and the insurance limiter failed: let the request through rather than
      // turn a limiter fault into an outage, and say so loudly.
      logger.error({ err }, 'rate limiter failed; request admitted unlimited');
      next();
      return;
    }
    if (admitted.revoked) {
      await refuseCredential(res, ip, revokedToken(revocation?.scheme ?? 'Bearer'));
      return;
    }
    setRateLimitHeaders(res, admitted.decision);
    if (!admitted.lease) {
      recordLimitRefusal(planName(identity.plan), admitted.reason ?? 'rate');
      sendEdgeError(res, surface, planLimitRefusal(admitted));
      return;
    }
    const lease = admitted.lease;
    res.once('close', () => void lease.release());
    next();
  };
}
