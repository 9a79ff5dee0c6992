import type { ServerResponse } from 'node:http';

/**
 * Writes a JSON answer that must not be cached (RFC 6749 §5.1, RFC 7662 §2.2): status, headers and
 * body in one `writeHead` + `end`. The hot endpoints (/token, /introspect) answer with this instead of
 * express's `res.json`, whose content-type lookup, charset handling and freshness check run on every
 * response for nothing here. Headers already set on `res` (x-request-id, DPoP-Nonce) are kept.
 */
export function sendNoStoreJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const json = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(json)),
    'Cache-Control': 'no-store',
  });
  res.end(json);
}
