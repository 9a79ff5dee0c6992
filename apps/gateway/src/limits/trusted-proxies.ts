import { isIP } from 'node:net';

/** Ranges Express's `trust proxy` (proxy-addr) knows by name. */
const NAMED_RANGES: ReadonlySet<string> = new Set(['loopback', 'linklocal', 'uniquelocal']);

function validEntry(entry: string): boolean {
  if (NAMED_RANGES.has(entry)) return true;
  const slash = entry.indexOf('/');
  if (slash === -1) return isIP(entry) !== 0;
  const family = isIP(entry.slice(0, slash));
  const bits = entry.slice(slash + 1);
  if (family === 0 || !/^\d{1,3}$/.test(bits)) return false;
  return Number(bits) <= (family === 4 ? 32 : 128);
}

/**
 * Why a TRUSTED_PROXIES value is not a list of addresses, CIDR ranges or the names `loopback`,
 * `linklocal`, `uniquelocal` (comma separated); undefined when it is. Hop counts and `true`
 * ("trust everyone") are not accepted: a client would choose its own address.
 */
export function trustedProxiesProblem(value: string): string | undefined {
  const bad = splitList(value).filter((entry) => !validEntry(entry));
  return bad.length ? `not an address, CIDR range or loopback/linklocal/uniquelocal: ${bad.join(', ')}` : undefined;
}

function splitList(value: string): string[] {
  return value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
}

/**
 * Express's `trust proxy` setting for TRUSTED_PROXIES: the hops whose X-Forwarded-For is believed.
 * Empty (the default) trusts no one: the client is the socket's peer, and a header anyone can send
 * never picks the address that per-address limits count against.
 */
export function proxyTrust(value: string): string[] | false {
  const list = splitList(value);
  return list.length ? list : false;
}
