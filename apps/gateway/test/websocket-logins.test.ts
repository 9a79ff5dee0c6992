import type { IncomingMessage } from 'node:http';
import { createLogger } from '@platform/logger';
import { upgradeClientAddress } from '../src/limits/client-address';
import type { FailedCredentialBudget } from '../src/limits/failed-credentials';
import type { RateDecision } from '../src/limits/rate-limiter';
import { createWebSocketLogins } from '../src/limits/websocket-logins';

const upgrade = (peer: string, forwardedFor?: string) =>
  ({
    headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {},
    socket: { remoteAddress: peer },
  }) as unknown as IncomingMessage;

describe('the client IP of a WebSocket upgrade (TRUSTED_PROXIES, as for HTTP)', () => {
  it('takes X-Forwarded-For only from a trusted hop', () => {
    const loopback = upgradeClientAddress('loopback');
    expect(loopback(upgrade('127.0.0.1', '198.51.100.7'))).toBe('198.51.100.7');
    expect(loopback(upgrade('203.0.113.5', '198.51.100.7'))).toBe('203.0.113.5');
    expect(loopback(upgrade('127.0.0.1'))).toBe('127.0.0.1');
  });

  it('walks the chain back to the first untrusted hop', () => {
    const proxies = upgradeClientAddress('10.0.0.0/8');
    expect(proxies(upgrade('10.0.0.2', '198.51.100.7, 10.0.0.9'))).toBe('198.51.100.7');
    // A client that forges the first entry is still seen as itself.
    expect(proxies(upgrade('10.0.0.2', '192.0.2.1, 203.0.113.8'))).toBe('203.0.113.8');
  });
});

describe('WebSocket logins charged to the client IP', () => {
  const LIMIT = 2;
  function setup(options: { failing?: boolean } = {}) {
    const used = new Map<string, number>();
    const decision = (n: number, allowed: boolean): RateDecision => ({
      allowed,
      limit: LIMIT,
      remaining: Math.max(0, LIMIT - n),
      resetUnix: 2_000_000_000,
      retryAfter: 1,
    });
    const failures: FailedCredentialBudget = {
      spent: jest.fn(async (ip: string) => {
        if (options.failing) throw new Error('redis down');
        return (used.get(ip) ?? 0) >= LIMIT ? decision(used.get(ip)!, false) : null;
      }),
      charge: jest.fn(async (ip: string) => {
        if (options.failing) throw new Error('redis down');
        const n = (used.get(ip) ?? 0) + 1;
        used.set(ip, n);
        return decision(n, n <= LIMIT);
      }),
    };
    const logins = createWebSocketLogins({
      failures,
      apiKeys: { isCached: (key) => key === 'sk_cached' },
      addressOf: upgradeClientAddress('loopback'),
      logger: createLogger('test', 'silent'),
    });
    return { logins, failures, used };
  }

  it('charges refusals to the forwarded IP; the one that no longer fits gets the 429 numbers', async () => {
    const { logins, used } = setup();
    const from = upgrade('127.0.0.1', '198.51.100.7');
    expect(await logins.chargeRefusal(from)).toBeNull();
    expect(await logins.chargeRefusal(from)).toBeNull();
    expect(await logins.chargeRefusal(from)).toMatchObject({ allowed: false, limit: LIMIT, remaining: 0 });
    expect(used.get('198.51.100.7')).toBe(3);
    expect(await logins.chargeRefusal(upgrade('127.0.0.1', '192.0.2.4'))).toBeNull();
  });

  it('once spent, refuses unchecked only what would ask auth (an API key in neither cache)', async () => {
    const { logins, failures } = setup();
    const from = upgrade('127.0.0.1', '198.51.100.7');
    expect(await logins.refuseUnchecked(from, { kind: 'api_key', key: 'sk_new' })).toBeNull();
    for (let i = 0; i < LIMIT; i += 1) await logins.chargeRefusal(from);
    expect(await logins.refuseUnchecked(from, { kind: 'api_key', key: 'sk_new' })).toMatchObject({
      allowed: false,
      retryAfter: 1,
    });
    expect(await logins.refuseUnchecked(from, { kind: 'api_key', key: 'sk_cached' })).toBeNull();
    expect(await logins.refuseUnchecked(from, { kind: 'jwt', token: 'a.b.c', scheme: 'Bearer' })).toBeNull();
    expect(await logins.refuseUnchecked(from, { kind: 'none' })).toBeNull();
    expect(
      await logins.refuseUnchecked(upgrade('127.0.0.1', '192.0.2.4'), { kind: 'api_key', key: 'sk_new' }),
    ).toBeNull();
    expect(failures.spent).toHaveBeenCalledTimes(3);
  });

  it('a failed limiter lets the login be checked and its refusal stand uncounted', async () => {
    const { logins } = setup({ failing: true });
    const from = upgrade('127.0.0.1', '198.51.100.7');
    expect(await logins.refuseUnchecked(from, { kind: 'api_key', key: 'sk_new' })).toBeNull();
    expect(await logins.chargeRefusal(from)).toBeNull();
  });
});
