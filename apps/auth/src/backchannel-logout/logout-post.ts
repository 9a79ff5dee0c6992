import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { addressAllowed, checkedLookup, OutboundFetchError } from '../http/outbound-fetch';

export interface PostBounds {
  timeoutMs: number;
  /** BACKCHANNEL_LOGOUT_ALLOW_PRIVATE: loopback and private addresses may be reached (plain http only to loopback). */
  allowPrivate: boolean;
}

/** `delivered`: the RP answered 2xx. `retry`: worth trying again later. `rejected`: trying again cannot help. */
type PostOutcome = { result: 'delivered' } | { result: 'retry' | 'rejected'; reason: string };

/** The most of an RP's answer read (and dropped) before the connection is cut. */
const MAX_ANSWER_BYTES = 65_536;

/**
 * POSTs an `application/x-www-form-urlencoded` body to an RP's back-channel endpoint within the bounds
 * of any request to a client-registered URL (http/outbound-fetch.ts): the addresses it may reach, checked
 * on the answer the connection uses; a whole-request timeout; no redirects followed (a 3xx is a refusal).
 */
export function postForm(target: string, body: string, bounds: PostBounds): Promise<PostOutcome> {
  const url = new URL(target);
  const literal = url.hostname.replace(/^\[|\]$/g, '');
  // An IP literal is connected to without a lookup: check it here.
  if (isIP(literal) && !addressAllowed(literal, url.protocol, bounds))
    return Promise.resolve({ result: 'rejected', reason: 'private address' });
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    let settled = false;
    const done = (outcome: PostOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const req = send(url, {
      method: 'POST',
      lookup: checkedLookup(url.protocol, bounds),
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'content-length': Buffer.byteLength(body),
        'cache-control': 'no-cache',
      },
    });
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      let read = 0;
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > MAX_ANSWER_BYTES) res.destroy();
      });
      res.on('error', () => undefined);
      // §2.8: 200 on success (some frameworks answer 204); 400 when the RP refused the token.
      if (status >= 200 && status < 300) done({ result: 'delivered' });
      else if (status >= 500 || status === 408 || status === 429) done({ result: 'retry', reason: `HTTP ${status}` });
      else done({ result: 'rejected', reason: `HTTP ${status}` });
    });
    const timer = setTimeout(() => {
      req.destroy();
      done({ result: 'retry', reason: 'timeout' });
    }, bounds.timeoutMs);
    req.on('error', (err: Error & { code?: string }) => {
      if (err instanceof OutboundFetchError) done({ result: 'rejected', reason: 'private address' });
      else done({ result: 'retry', reason: err.code ?? err.message });
    });
    req.end(body);
  });
}
