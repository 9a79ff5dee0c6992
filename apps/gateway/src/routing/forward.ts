import type { IncomingHttpHeaders } from 'node:http';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Request, Response } from 'express';
import { request } from 'undici';
import { REQUEST_ID_HEADER } from '@platform/logger';
import type { Upstream } from './upstream';
import { upstreamFailure } from './upstream';
import type { EdgeError } from './edge-errors';
import { nonCanonicalPath } from './canonical-path';

/** Hop-by-hop headers (RFC 9110 §7.6.1) never cross the gateway. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** Headers only the gateway may set towards a service; a client's copy is dropped. */
const GATEWAY_ONLY_HEADERS = ['x-platform-identity', 'x-internal-secret'];

interface ForwardOptions {
  /** Request headers to drop besides hop-by-hop and gateway-only ones (lower case). */
  drop?: readonly string[];
  /** Headers to set on the upstream request. */
  set?: Record<string, string>;
  /** A body the gateway already read (GraphQL); otherwise the request streams through. */
  body?: Buffer;
  maxBodyBytes: number;
  onFailure: (err: EdgeError) => void;
}

/** The set of headers never forwarded, built once per `drop` list (routes pass constant lists). */
const droppedSets = new WeakMap<readonly string[], ReadonlySet<string>>();
const ALWAYS_DROPPED: ReadonlySet<string> = new Set([...HOP_BY_HOP, ...GATEWAY_ONLY_HEADERS]);

function droppedHeaders(drop: readonly string[] | undefined): ReadonlySet<string> {
  if (!drop) return ALWAYS_DROPPED;
  let set = droppedSets.get(drop);
  if (!set) {
    set = new Set([...ALWAYS_DROPPED, ...drop]);
    droppedSets.set(drop, set);
  }
  return set;
}

function upstreamHeaders(req: Request, options: ForwardOptions): Record<string, string> {
  const dropped = droppedHeaders(options.drop);
  // Headers the client's Connection header names are hop-by-hop too (RFC 9110 §7.6.1).
  const connectionTokens = req.headers.connection
    ? String(req.headers.connection)
        .split(',')
        .map((t) => t.trim().toLowerCase())
        .filter(Boolean)
    : [];
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers as IncomingHttpHeaders)) {
    if (value === undefined || dropped.has(name) || connectionTokens.includes(name)) continue;
    out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  // X-Forwarded-* from the client are kept only when it is a trusted proxy (TRUST_PROXY); then
  // `req.protocol`/`req.hostname` already reflect them.
  const remote = req.socket.remoteAddress ?? '';
  const trustFn = req.app.get('trust proxy fn') as ((addr: string, hop: number) => boolean) | undefined;
  const fromTrustedProxy = trustFn ? trustFn(remote, 0) : false;
  const priorFor = fromTrustedProxy ? req.get('x-forwarded-for') : undefined;
  out['x-forwarded-for'] = priorFor ? `${priorFor}, ${remote}` : remote;
  out['x-forwarded-proto'] = req.protocol;
  const host = (fromTrustedProxy ? req.get('x-forwarded-host') : undefined) ?? req.headers.host;
  if (host) out['x-forwarded-host'] = host;
  if (options.body) {
    out['content-length'] = String(options.body.length);
    delete out['content-encoding'];
  }
  // The id the gateway logs and answers with (libs/logger) follows the request upstream, so the
  // service logs it and echoes it back; a client's malformed id was replaced, not passed on.
  const requestId = (req as { id?: unknown }).id;
  if (typeof requestId === 'string' && requestId) out[REQUEST_ID_HEADER] = requestId;
  else delete out[REQUEST_ID_HEADER];
  return { ...out, ...(options.set ?? {}) };
}

function hasBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** Counts streamed request bytes so a chunked body cannot exceed the bound either. */
function limitBytes(max: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      seen += chunk.length;
      if (seen > max) callback(Object.assign(new Error('request body too large'), { code: 'BODY_TOO_LARGE' }));
      else callback(null, chunk);
    },
  });
}

/**
 * Streams one request to an upstream and its answer back, within the upstream's time bounds.
 * Failures before the response starts go to `onFailure` (the caller answers in its interface's
 * shape); a failure mid-body can only cut the connection.
 */
export async function forward(
  req: Request,
  res: Response,
  upstream: Upstream,
  path: string,
  options: ForwardOptions,
): Promise<void> {
  // The route was chosen by this path as written; one the URL parser would resolve differently goes nowhere.
  const notCanonical = nonCanonicalPath(path);
  if (notCanonical) {
    options.onFailure({ status: 400, code: 'invalid_request', message: notCanonical, field: 'path' });
    req.resume();
    return;
  }
  const declared = Number(req.headers['content-length'] ?? 0);
  if (Number.isFinite(declared) && declared > options.maxBodyBytes) {
    options.onFailure({
      status: 413,
      code: 'payload_too_large',
      message: `request body exceeds ${options.maxBodyBytes} bytes`,
    });
    req.resume();
    return;
  }
  const abort = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) abort.abort();
  });
  let body: Buffer | Readable | undefined = options.body;
  if (!body && hasBody(req)) body = req.pipe(limitBytes(options.maxBodyBytes));
  // Concatenated, not resolved: a path such as `//elsewhere/x` must never change the host.
  const url = new URL(`${upstream.baseUrl.origin}${path.startsWith('/') ? path : `/${path}`}`);
  let answer: Awaited<ReturnType<typeof request>>;
  try {
    answer = await request(url, {
      method: req.method as 'GET',
      headers: upstreamHeaders(req, options),
      body: body ?? null,
      dispatcher: upstream.agent,
      signal: abort.signal,
    });
  } catch (err) {
    if (abort.signal.aborted) return;
    if (
      (err as { code?: unknown }).code === 'BODY_TOO_LARGE' ||
      (err as { cause?: { code?: unknown } }).cause?.code === 'BODY_TOO_LARGE'
    ) {
      options.onFailure({
        status: 413,
        code: 'payload_too_large',
        message: `request body exceeds ${options.maxBodyBytes} bytes`,
      });
      return;
    }
    options.onFailure(upstreamFailure(upstream.name, err));
    return;
  }
  res.status(answer.statusCode);
  for (const [name, value] of Object.entries(answer.headers)) {
    if (value === undefined || HOP_BY_HOP.has(name)) continue;
    res.setHeader(name, value);
  }
  try {
    await pipeline(answer.body, res);
  } catch {
    // Client went away or the upstream stalled mid-body: nothing left to answer.
    res.destroy();
  }
}
