import { BlockList, isIP } from 'node:net';

/**
 * Addresses a server-side request to a URL a client registered (a `jwks_uri`, a `backchannel_logout_uri`)
 * must not reach unless the operator allows it: loopback, private (RFC 1918, RFC 4193), link-local (cloud
 * metadata at 169.254.169.254), carrier-grade NAT, documentation, benchmarking, multicast, reserved and
 * unspecified ranges (the IANA special-purpose registries, RFC 6890).
 */
const NOT_PUBLIC = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  NOT_PUBLIC.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  NOT_PUBLIC.addSubnet(net, prefix, 'ipv6');

/**
 * An IPv4-mapped IPv6 address (`::ffff:10.0.0.1`) is judged as the IPv4 address it maps (a BlockList rule
 * for ::ffff:0:0/96 would match every IPv4 address, so the mapping is undone here instead).
 */
function unmapped(address: string): string {
  const dotted = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (dotted) return dotted[1]!;
  // The WHATWG URL parser writes `[::ffff:10.0.0.1]` as `[::ffff:a00:1]`.
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (!hex) return address;
  const high = parseInt(hex[1]!, 16);
  const low = parseInt(hex[2]!, 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

/** Whether a server-side request must not reach `address` unless the operator allows it (not an IP address at all: true). */
export function isPrivateAddress(address: string): boolean {
  const ip = unmapped(address);
  const family = isIP(ip);
  if (family === 0) return true;
  return NOT_PUBLIC.check(ip, family === 4 ? 'ipv4' : 'ipv6');
}

export function isLoopbackAddress(address: string): boolean {
  const ip = unmapped(address);
  return ip === '::1' || (isIP(ip) === 4 && ip.startsWith('127.'));
}
