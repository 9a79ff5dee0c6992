import type { NextFunction, Request, Response } from 'express';
import { createLogger } from '@platform/logger';
import { TokenRejectedError, type AccessTokenVerifier } from '../src/auth/access-token-verifier';
import { createApiKeyResolver, type ApiKeyRecord } from '../src/auth/api-key-cache';
import { AuthUnavailableError } from '../src/auth/api-key-lookup';
import { authenticateRequests } from '../src/auth/authenticate-middleware';
import type { RouteNeeds } from '../src/auth/authenticate';
import type { FailedCredentialBudget } from '../src/limits/failed-credentials';
import type { RateDecision } from '../src/limits/rate-limiter';

/**
 * The bookkeeping of requests refused for their credentials (limits/failed-credentials.ts), with
 * a fake per-IP budget: what is charged, what the answers carry, and what never reaches auth.
 */
const LIMIT = 3;
const live: ApiKeyRecord = {
  accountId: 'acc1',
  plan: 'starter',
  keyId: 'key1',
  roles: ['USER'],
  scope: 'speech:read speech:write',
};
const GOOD = `sk_${'a'.repeat(64)}`;
const jwt = `${Buffer.from('{"alg":"ES256"}').toString('base64url')}.${Buffer.from('{}').toString('base64url')}.c2ln`;

function fakeBudget() {
  const used = new Map<string, number>();
  const decision = (n: number, allowed: boolean): RateDecision => ({
    allowed,
    limit: LIMIT,
    remaining: Math.max(0, LIMIT - n),
    resetUnix: 2_000_000_000,
    retryAfter: 1,
  });
  const budget: FailedCredentialBudget & { used: Map<string, number> } = {
    used,
    spent: jest.fn(async (ip: string) => ((used.get(ip) ?? 0) >= LIMIT ? decision(used.get(ip)!, false) : null)),
    charge: jest.fn(async (ip: string) => {
      const n = (used.get(ip) ?? 0) + 1;
      used.set(ip, n);
      return decision(n, n <= LIMIT);
    }),
  };
  return budget;
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
  passed: boolean;
}

function setup(options: { scope?: string; lookupFails?: boolean } = {}) {
  const lookup = jest.fn(async (key: string) => {
    if (options.lookupFails) throw new AuthUnavailableError('down');
    return key === GOOD ? live : null;
  });
  const apiKeys = createApiKeyResolver(lookup, { ttlMs: 30_000, unknownTtlMs: 5_000 });
  const verifyAccessToken: AccessTokenVerifier = jest.fn(async () => {
    throw new TokenRejectedError('invalid_token', 'signature verification failed');
  });
  const budget = fakeBudget();
  const needs: RouteNeeds = {
    audiences: ['http://gw'],
    scope: options.scope ?? 'speech:read',
    credentialsRequired: true,
    method: 'GET',
    url: 'http://gw/v1/models',
  };
  const middleware = authenticateRequests(
    'speech',
    () => needs,
    { apiKeys, verifyAccessToken },
    budget,
    createLogger('test', 'silent'),
  );

  async function send(ip: string, headers: Record<string, string>): Promise<Answer> {
    const answer: Answer = { status: 0, headers: {}, body: undefined, passed: false };
    const res = {
      headersSent: false,
      setHeader(name: string, value: string) {
        answer.headers[name.toLowerCase()] = value;
        return res;
      },
      status(code: number) {
        answer.status = code;
        return res;
      },
      json(body: unknown) {
        answer.body = body;
        return res;
      },
    };
    const req = { headers, ip, socket: { remoteAddress: '127.0.0.1' }, method: 'GET', originalUrl: '/v1/models' };
    await middleware(
      req as unknown as Request,
      res as unknown as Response,
      (() => {
        answer.passed = true;
      }) as NextFunction,
    );
    return answer;
  }
  return { send, lookup, budget, verifyAccessToken };
}

describe('requests refused for their credentials pay from their IP budget', () => {
  it('charges each unknown key, answers 401 with X-RateLimit-*, then 429 once the budget is spent', async () => {
    const { send, lookup, budget } = setup();
    const answers = [];
    for (let i = 0; i < LIMIT + 2; i += 1)
      answers.push(await send('198.51.100.7', { 'xi-api-key': `sk_${String(i).padStart(64, '0')}` }));
    expect(answers.map((a) => a.status)).toEqual([401, 401, 401, 429, 429]);
    expect(answers.map((a) => a.headers['x-ratelimit-remaining'])).toEqual(['2', '1', '0', '0', '0']);
    for (const a of answers) {
      expect(a.headers['x-ratelimit-limit']).toBe(String(LIMIT));
      expect(a.headers['x-ratelimit-reset']).toBe('2000000000');
    }
    expect(answers[0]!.body).toEqual({ detail: { status: 'invalid_api_key', message: expect.any(String) } });
    expect(answers[3]!.body).toEqual({
      detail: { status: 'too_many_requests', message: expect.stringContaining('3 per second') },
    });
    expect(answers[3]!.headers['retry-after']).toBe('1');
    // The fourth and fifth keys were refused before auth was asked: the budget was already spent.
    expect(lookup).toHaveBeenCalledTimes(LIMIT);
    expect(budget.used.get('198.51.100.7')).toBe(LIMIT);
  });

  it('once the budget is spent, an uncached key (even a good one) is refused without a lookup; a cached good key still passes', async () => {
    const { send, lookup } = setup();
    expect((await send('203.0.113.9', { 'xi-api-key': GOOD })).passed).toBe(true); // cached now
    for (let i = 0; i < LIMIT; i += 1) await send('198.51.100.8', { 'xi-api-key': `sk_bad${i}` });
    const before = lookup.mock.calls.length;
    const cachedGood = await send('198.51.100.8', { 'xi-api-key': GOOD });
    expect(cachedGood.passed).toBe(true);
    expect(cachedGood.headers['x-ratelimit-limit']).toBeUndefined(); // its account's limits come next, not the IP's
    const fresh = await send('198.51.100.8', { 'xi-api-key': `sk_${'b'.repeat(64)}` });
    expect(fresh.status).toBe(429);
    expect(lookup.mock.calls.length).toBe(before);
    expect((await send('192.0.2.1', { 'xi-api-key': `sk_${'b'.repeat(64)}` })).status).toBe(401); // another IP: its own budget
  });

  it('answers a flood of the same unknown key from memory after the first lookup', async () => {
    const { send, lookup } = setup();
    for (let i = 0; i < 3; i += 1) await send(`192.0.2.${10 + i}`, { 'xi-api-key': 'sk_same' });
    expect(lookup).toHaveBeenCalledTimes(1);
  });

  it('charges bad tokens, malformed headers, two credentials and missing credentials', async () => {
    const { send, budget, verifyAccessToken } = setup();
    const cases: Array<[Record<string, string>, number]> = [
      [{ authorization: `Bearer ${jwt}` }, 401],
      [{ authorization: 'Basic dXNlcjpwYXNz' }, 401],
      [{ authorization: `Bearer ${jwt}`, 'xi-api-key': GOOD }, 400],
      [{}, 401],
    ];
    for (const [i, [headers, status]] of cases.entries()) {
      const ip = `192.0.2.${100 + i}`;
      const answer = await send(ip, headers);
      expect(answer.status).toBe(status);
      expect(answer.headers['x-ratelimit-remaining']).toBe('2');
      expect(budget.used.get(ip)).toBe(1);
    }
    expect(verifyAccessToken).toHaveBeenCalledTimes(1);
    // A JWT is verified locally (no auth round trip), then charged: spent budget → 429.
    for (let i = 0; i < LIMIT; i += 1) await send('192.0.2.200', { authorization: `Bearer ${jwt}` });
    expect((await send('192.0.2.200', { authorization: `Bearer ${jwt}` })).status).toBe(429);
  });

  it('charges neither a valid key that lacks the scope (403) nor a key auth could not check (503)', async () => {
    const scoped = setup({ scope: 'content:write' });
    expect((await scoped.send('192.0.2.50', { 'xi-api-key': GOOD })).status).toBe(403);
    expect(scoped.budget.charge).not.toHaveBeenCalled();
    const down = setup({ lookupFails: true });
    const answer = await down.send('192.0.2.51', { 'xi-api-key': GOOD });
    expect(answer.status).toBe(503);
    expect(answer.headers['x-ratelimit-limit']).toBeUndefined();
    expect(down.budget.charge).not.toHaveBeenCalled();
  });

  it('still refuses (401, uncounted) when the limiter itself fails', async () => {
    const { send, budget } = setup();
    (budget.charge as jest.Mock).mockRejectedValueOnce(new Error('redis and insurance down'));
    (budget.spent as jest.Mock).mockRejectedValueOnce(new Error('redis and insurance down'));
    const answer = await send('192.0.2.60', { 'xi-api-key': 'sk_unknown' });
    expect(answer.status).toBe(401);
    expect(answer.headers['x-ratelimit-limit']).toBeUndefined();
  });
});
