import { Agent, errors as undiciErrors } from 'undici';
import type { EdgeError } from './edge-errors';

/** A service behind the gateway, with its own connection pool and time bounds. */
export interface Upstream {
  name: string;
  baseUrl: URL;
  agent: Agent;
}

export interface UpstreamBounds {
  /** Time for the upstream to send response headers, and the longest pause inside a body. */
  timeoutMs: number;
  connectTimeoutMs: number;
}

export function createUpstream(name: string, baseUrl: string, bounds: UpstreamBounds): Upstream {
  return {
    name,
    baseUrl: new URL(baseUrl),
    agent: new Agent({
      connect: { timeout: bounds.connectTimeoutMs },
      headersTimeout: bounds.timeoutMs,
      bodyTimeout: bounds.timeoutMs,
      keepAliveTimeout: 4_000,
      connections: 256,
    }),
  };
}

const REFUSED = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

function codeOf(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const own = (err as { code?: unknown }).code;
  if (typeof own === 'string') return own;
  return codeOf((err as { cause?: unknown }).cause);
}

/**
 * Why an upstream call failed, as the status the client gets: nothing listening → 503 (the
 * service is unavailable; retrying later may work), too slow → 504, anything else (reset,
 * garbage) → 502.
 */
export function upstreamFailure(upstream: string, err: unknown): EdgeError {
  const code = codeOf(err);
  if (
    err instanceof undiciErrors.HeadersTimeoutError ||
    err instanceof undiciErrors.BodyTimeoutError ||
    err instanceof undiciErrors.ConnectTimeoutError ||
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_CONNECT_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT'
  ) {
    return {
      status: 504,
      code: 'upstream_timeout',
      message: `${upstream} did not answer in time`,
      headers: { 'retry-after': '1' },
    };
  }
  if (code && REFUSED.has(code)) {
    return {
      status: 503,
      code: 'upstream_unavailable',
      message: `${upstream} is unavailable`,
      headers: { 'retry-after': '1' },
    };
  }
  return { status: 502, code: 'upstream_error', message: `${upstream} failed to answer` };
}
