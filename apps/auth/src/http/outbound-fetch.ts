import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { isLoopbackAddress, isPrivateAddress } from './address-ranges';

/**
 * Bounds of a request this server makes to a URL a client registered (its `jwks_uri`): without them a
 * registration could make the server probe its own network (SSRF), hang on a slow answer, or read an
 * endless one.
 */
export interface OutboundLimits {
  /** Loopback and private addresses allowed, and plain http to loopback (tests, development). */
  allowPrivate: boolean;
  timeoutMs: number;
  maxBytes: number;
}

export class OutboundFetchError extends Error {
  override name = 'OutboundFetchError';
}

/** Whether the server may connect to `address` for a URL of `protocol`. */
export function addressAllowed(
  address: string,
  protocol: string,
  limits: Pick<OutboundLimits, 'allowPrivate'>,
): boolean {
  if (protocol === 'http:') return limits.allowPrivate && isLoopbackAddress(address);
  return !isPrivateAddress(address) || limits.allowPrivate;
}

/**
 * A DNS lookup that checks every address the name resolves to and connects to a checked one: the check
 * and the connection use the same answer, so a name that resolves differently the second time (DNS
 * rebinding) cannot slip past. Also used for back-channel logout POSTs (backchannel-logout/logout-post.ts).
 */
export function checkedLookup(protocol: string, limits: Pick<OutboundLimits, 'allowPrivate'>): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, '', 4);
      const refused = addresses.find((a) => !addressAllowed(a.address, protocol, limits));
      if (refused || addresses.length === 0)
        return callback(
          new OutboundFetchError(`${hostname} resolves to an address this server does not fetch from`),
          '',
          4,
        );
      // Node 20 asks for every address (`all: true`) when it races IPv4 and IPv6 (autoSelectFamily, on by
      // default) and fails on a single one ("Invalid IP address: undefined"): answer in the form asked.
      if (options.all) (callback as unknown as (e: null, all: LookupAddress[]) => void)(null, addresses);
      else callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

/** GETs a JSON document from a client-registered URL within `limits`; throws OutboundFetchError. No redirects are followed. */
export async function fetchJsonWithin(raw: string, limits: OutboundLimits): Promise<unknown> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundFetchError('not a URL');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && limits.allowPrivate))
    throw new OutboundFetchError('only https URLs are fetched');
  if (url.username || url.password) throw new OutboundFetchError('a URL with credentials is not fetched');
  const literal = url.hostname.replace(/^\[|\]$/g, '');
  // An IP literal is connected to without a lookup: check it here.
  if (isIP(literal) && !addressAllowed(literal, url.protocol, limits))
    throw new OutboundFetchError('this address is not fetched from');
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const body = await new Promise<Buffer>((resolve, reject) => {
    let settled = false;
    const req = send(url, {
      method: 'GET',
      headers: { accept: 'application/json, application/jwk-set+json' },
      lookup: checkedLookup(url.protocol, limits),
    });
    // Settles once: the first failure ends the request (a later socket error is then expected and ignored).
    const fail = (err: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      reject(err instanceof OutboundFetchError ? err : new OutboundFetchError(err.message));
    };
    const timer = setTimeout(
      () => fail(new OutboundFetchError(`no complete answer within ${limits.timeoutMs} ms`)),
      limits.timeoutMs,
    );
    req.on('error', fail);
    req.on('response', (res: IncomingMessage) => {
      res.on('error', fail);
      if (res.statusCode !== 200)
        return fail(new OutboundFetchError(`answered ${res.statusCode ?? 'no status'} (redirects are not followed)`));
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > limits.maxBytes)
          return fail(new OutboundFetchError(`the answer is larger than ${limits.maxBytes} bytes`));
        chunks.push(chunk);
      });
      res.on('end', () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(Buffer.concat(chunks));
      });
    });
    req.end();
  });
  try {
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch {
    throw new OutboundFetchError('the answer is not JSON');
  }
}
