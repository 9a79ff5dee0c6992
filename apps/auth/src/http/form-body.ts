import type { IncomingMessage, ServerResponse } from 'node:http';

const FORM_LIMIT_BYTES = 16 * 1024;
const FORM_MAX_PARAMS = 64;

/** A body this server will not read; its message is safe to show the client. */
export class BodyError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** A request whose body `formBody` has read. */
export type FormRequest = IncomingMessage & { body?: unknown };

/**
 * `application/x-www-form-urlencoded` bodies for the OAuth endpoints and forms: 16 KiB and 64
 * parameters at most (413 beyond), UTF-8, no content encoding (415). A repeated parameter becomes
 * an array, so `single()` can refuse it. Another content type leaves `req.body` empty (`{}`), so
 * the endpoint answers `invalid_request` for its missing parameters.
 *
 * Why not `express.urlencoded`: this is the hottest code of /token and /introspect, and body-parser's
 * generality (charsets, inflation, qs/type-is/iconv per request) cost a measurable share of each
 * request (see docs/benchmarks.md); this does the same checks for our one format.
 */
export function formBody(): (req: FormRequest, res: ServerResponse, next: (err?: unknown) => void) => void {
  return (req, _res, next) => {
    const type = req.headers['content-type'];
    const mediaType = typeof type === 'string' ? type.split(';', 1)[0]!.trim().toLowerCase() : '';
    if (
      mediaType !== 'application/x-www-form-urlencoded' ||
      (req.method !== 'POST' && req.method !== 'PUT' && req.method !== 'PATCH')
    ) {
      req.body = {};
      next();
      return;
    }
    const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(type as string)?.[1]?.toLowerCase();
    if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8' && charset !== 'us-ascii')
      return next(new BodyError(415, 'unsupported charset'));
    const encoding = req.headers['content-encoding'];
    if (encoding !== undefined && encoding.toLowerCase() !== 'identity')
      return next(new BodyError(415, 'unsupported content encoding'));
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > FORM_LIMIT_BYTES) {
      req.resume();
      return next(new BodyError(413, 'request body too large'));
    }

    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (err?: Error) => {
      if (done) return;
      done = true;
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      if (err) {
        req.resume(); // drain so the connection stays usable for the error response
        next(err);
        return;
      }
      try {
        req.body = parseForm(Buffer.concat(chunks, size).toString('utf8'));
        next();
      } catch (parseErr) {
        next(parseErr);
      }
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > FORM_LIMIT_BYTES) finish(new BodyError(413, 'request body too large'));
      else chunks.push(chunk);
    };
    const onEnd = () => finish();
    const onError = () => finish(new BodyError(400, 'request aborted'));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  };
}

/** Form fields into a prototype-free record; repeated names become arrays. */
function parseForm(text: string): Record<string, string | string[]> {
  const out = Object.create(null) as Record<string, string | string[]>;
  let count = 0;
  for (const [name, value] of new URLSearchParams(text)) {
    if (++count > FORM_MAX_PARAMS) throw new BodyError(413, 'too many parameters');
    const existing = out[name];
    if (existing === undefined) out[name] = value;
    else if (Array.isArray(existing)) existing.push(value);
    else out[name] = [existing, value];
  }
  return out;
}
