import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { createLogger } from '@platform/logger';
import type { Identity } from '@platform/identity';
import { limitRequests, planLimitRefusal, type PlanLimiter } from '../src/limits/limit-middleware';
import { defaultPlanTable, limitSubject } from '../src/limits/plan-limits';
import type { Surface } from '../src/routing/edge-errors';

/**
 * A plan limit's 429 says which limit it is, the plan's number and when to retry, in every
 * interface's error shape, with the same seconds in Retry-After.
 */
const table = defaultPlanTable({ rps: 50, concurrency: 25 });
const starter: Identity = { sub: 'a1', roles: ['USER'], scope: '', method: 'api_key', plan: 'starter' };
const subject = limitSubject(starter, '10.0.0.1', table);
const refusedRate = { allowed: false, limit: 5, remaining: 0, resetUnix: 0, retryAfter: 2 };

describe('planLimitRefusal', () => {
  it('the rate: requests per second, the plan and its number, the seconds to wait', () => {
    expect(planLimitRefusal({ decision: refusedRate, lease: null, reason: 'rate', subject })).toEqual({
      status: 429,
      code: 'rate_limited',
      message: 'requests per second limit: the starter plan allows 5 per second; retry after 2 s',
      headers: { 'retry-after': '2' },
    });
  });

  it('concurrency: requests at once, the plan and its number, retry after 1 s', () => {
    const decision = { ...refusedRate, allowed: true };
    expect(planLimitRefusal({ decision, lease: null, reason: 'concurrency', subject })).toEqual({
      status: 429,
      code: 'rate_limited',
      message:
        'concurrent requests limit: the starter plan allows 2 at once; retry after 1 s, or when one of yours finishes',
      headers: { 'retry-after': '1' },
    });
  });

  it('a caller without credentials is told its limit is per address', () => {
    const anonymous = limitSubject({ roles: [], scope: '', method: 'anonymous' }, '10.0.0.2', table);
    const refusal = planLimitRefusal({
      decision: { ...refusedRate, limit: 3 },
      lease: null,
      reason: 'rate',
      subject: anonymous,
    });
    expect(refusal.message).toBe(
      'requests per second limit: a caller without credentials (per address) allows 3 per second; retry after 2 s',
    );
  });
});

describe('limitRequests', () => {
  let server: http.Server;
  let base: string;
  const limiter: PlanLimiter = {
    admit: () => Promise.resolve({ decision: refusedRate, lease: null, reason: 'rate', subject }),
    admitToken: () => Promise.reject(new Error('not used')),
  };
  const logger = createLogger('plan-limit-refusal-test', 'silent');

  beforeAll(async () => {
    const app = express();
    for (const surface of ['speech', 'openai', 'content', 'graphql'] as Surface[]) {
      app.use(
        `/${surface}`,
        (req, _res, next) => {
          req.identity = starter;
          next();
        },
        limitRequests(limiter, surface, logger, () => Promise.resolve()),
      );
    }
    server = http.createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const message = 'requests per second limit: the starter plan allows 5 per second; retry after 2 s';
  it.each([
    ['speech', { detail: { status: 'too_many_requests', message } }],
    ['content', { error: { code: 429, message } }],
    ['graphql', { errors: [{ message, extensions: { code: 'RATE_LIMITED' } }] }],
    ['openai', { error: expect.objectContaining({ message, code: 'rate_limit_exceeded' }) as unknown }],
  ])('answers 429 in the %s shape with the limit named and Retry-After', async (surface, body) => {
    const res = await fetch(`${base}/${surface}`);
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('2');
    expect(await res.json()).toEqual(body);
  });
});
