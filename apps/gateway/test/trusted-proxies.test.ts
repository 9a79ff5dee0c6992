import type { IncomingMessage } from 'node:http';
import { loadGatewayConfig } from '../src/config';
import { upgradeClientAddress } from '../src/limits/client-address';
import { proxyTrust, trustedProxiesProblem } from '../src/limits/trusted-proxies';

const upgrade = (peer: string, forwardedFor?: string) =>
  ({
    headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {},
    socket: { remoteAddress: peer },
  }) as unknown as IncomingMessage;

const base = { INTERNAL_SECRET: 'x'.repeat(40), REDIS_URL: 'redis://127.0.0.1:1', KAFKA_BROKERS: '127.0.0.1:1' };

describe('TRUSTED_PROXIES', () => {
  it('trusts no one by default: X-Forwarded-For from any peer, loopback included, is ignored', () => {
    expect(loadGatewayConfig(base).TRUSTED_PROXIES).toBe('');
    expect(proxyTrust('')).toBe(false);
    const address = upgradeClientAddress('');
    expect(address(upgrade('127.0.0.1', '198.51.100.7'))).toBe('127.0.0.1');
    expect(address(upgrade('::1', '198.51.100.8'))).toBe('::1');
    expect(address(upgrade('10.0.0.2', '198.51.100.7'))).toBe('10.0.0.2');
  });

  it('honours the header from a listed proxy only', () => {
    const address = upgradeClientAddress('10.0.0.0/8, 192.0.2.10');
    expect(address(upgrade('10.1.2.3', '198.51.100.7'))).toBe('198.51.100.7');
    expect(address(upgrade('192.0.2.10', '198.51.100.9'))).toBe('198.51.100.9');
    expect(address(upgrade('127.0.0.1', '198.51.100.7'))).toBe('127.0.0.1');
  });

  it.each(['loopback', '10.0.0.0/8', '10.0.0.1, 2001:db8::/32', 'linklocal,uniquelocal', '::1'])(
    'accepts %s',
    (value) => {
      expect(trustedProxiesProblem(value)).toBeUndefined();
      expect(loadGatewayConfig({ ...base, TRUSTED_PROXIES: value }).TRUSTED_PROXIES).toBe(value);
    },
  );

  it.each(['true', '1', '*', '10.0.0.0/33', '::/129', 'proxy.example.com', '10.0.0.1/x'])(
    'refuses %s at boot',
    (value) => {
      expect(() => loadGatewayConfig({ ...base, TRUSTED_PROXIES: value })).toThrow(
        /TRUSTED_PROXIES: malformed \(not an address/,
      );
    },
  );

  it('refuses the old TRUST_PROXY variable, whose default trusted loopback, so a deployment notices the rename', () => {
    expect(() => loadGatewayConfig({ ...base, TRUST_PROXY: 'loopback' })).toThrow(
      /TRUST_PROXY: malformed \(renamed TRUSTED_PROXIES/,
    );
  });
});
