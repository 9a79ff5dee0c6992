import { setImmediate as nextTurn } from 'node:timers/promises';
import { MAX_JSON_DEPTH } from '@platform/service';

/**
 * What the gateway needs of a GraphQL-over-HTTP POST body (the `query` and `operationName` members,
 * so it can tell a mutation), read without `JSON.parse`: parsing a megabyte of nested arrays is
 * hundreds of milliseconds of the event loop, while this reads each byte once, keeps no value but
 * the two strings it wants, and refuses nesting past `MAX_JSON_DEPTH`. It validates the JSON's
 * structure, so whatever it reads, `JSON.parse` (content's body parser) reads the same way or refuses:
 * a top-level member named twice (JSON.parse keeps the last) is refused here, and member names are
 * compared after their escapes are decoded (`"\u0071uery"` is `query`).
 */

/** A member whose value is a number, boolean, array or object. */
export const NOT_A_STRING: unique symbol = Symbol('not a string');

/** A top-level member: `undefined` when absent, `null` when JSON null, its text when a string. */
export type MemberValue = string | null | undefined | typeof NOT_A_STRING;

export type GraphqlBody =
  /** A JSON array: a batch, which content does not execute. */
  | { shape: 'batch' }
  /** A JSON object: a GraphQL request. `hasExtensions` when it has a non-null `extensions` member. */
  | { shape: 'request'; query: MemberValue; operationName: MemberValue; hasExtensions: boolean }
  /** Not a JSON array or object, or JSON this reader will not read: the message says why (a 400). */
  | { shape: 'refused'; message: string };

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

function isWhitespace(byte: number): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;
}

/** Bytes of a number or of `true`/`false`/`null`: the reader skips them; JSON.parse judges their spelling. */
function isScalarByte(byte: number): boolean {
  return (
    (byte >= 0x30 && byte <= 0x39) ||
    byte === 0x2d ||
    byte === 0x2b ||
    byte === 0x2e ||
    (byte >= 0x61 && byte <= 0x7a) ||
    (byte >= 0x41 && byte <= 0x5a)
  );
}

/** The index just past the string whose opening quote is at `start`, or -1 when it never closes. */
function stringEnd(body: Buffer, start: number): number {
  for (let at = start + 1; at < body.length; at++) {
    const byte = body[at];
    if (byte === BACKSLASH) at++;
    else if (byte === QUOTE) return at + 1;
  }
  return -1;
}

/** A string token's value (quotes included in the slice); JSON.parse of one flat string is linear. */
function stringValue(body: Buffer, start: number, end: number): string | null {
  // Without escapes the bytes are the value (the common case for member names).
  if (!body.subarray(start, end).includes(BACKSLASH)) return body.toString('utf8', start + 1, end - 1);
  try {
    return JSON.parse(body.toString('utf8', start, end)) as string;
  } catch {
    return null;
  }
}

const WANTED: ReadonlySet<string> = new Set(['query', 'operationName', 'extensions']);
const WANTED_BYTES = [...WANTED].map((name) => ({ name, bytes: Buffer.from(name) }));
/** The longest a wanted member's name can be written: every character escaped (six bytes), and its quotes. */
const WANTED_NAME_MAX_BYTES = 6 * 'operationName'.length + 2;

/**
 * Which of WANTED the member name from `start` to `end` (its quotes included) is, if any: compared
 * byte for byte when it has no escape (no string is made for the many names a body may have), and
 * decoded only when it has one and could be short enough. Null when its escapes are not JSON.
 */
function wantedName(body: Buffer, start: number, end: number): string | undefined | null {
  if (end - start > WANTED_NAME_MAX_BYTES) return undefined;
  if (!body.subarray(start, end).includes(BACKSLASH)) {
    return WANTED_BYTES.find(
      ({ bytes }) => bytes.length === end - start - 2 && body.compare(bytes, 0, bytes.length, start + 1, end - 1) === 0,
    )?.name;
  }
  const name = stringValue(body, start, end);
  return name === null ? null : WANTED.has(name) ? name : undefined;
}

/**
 * Bytes read between turns of the event loop. Before V8 has compiled the scan (a replica's first
 * requests) it reads about 10 ms per 100 KiB; in slices, eight bodies at once never hold the loop
 * for more than a slice each while other requests (`/healthz`) wait.
 */
export const SCAN_SLICE_BYTES = 16 * 1024;

/**
 * Reads a POST body (UTF-8 JSON, already checked by its Content-Type) once, front to back, with a
 * fixed-size stack of open containers: time is linear in its length whatever its shape, and the
 * event loop gets a turn every `SCAN_SLICE_BYTES`.
 */
export async function readGraphqlBody(body: Buffer): Promise<GraphqlBody> {
  const refused = (message: string): GraphqlBody => ({ shape: 'refused', message });
  // Content's body parser drops a UTF-8 byte order mark; so does this.
  let at = body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf ? 3 : 0;
  const open: number[] = [];
  // What comes next: a value, an object member's name (or `}` right after `{`), a `:`, or a `,`/closer.
  let expect: 'value' | 'first-value' | 'name' | 'first-name' | 'colon' | 'after' = 'value';
  let topLevel: 'batch' | 'request' | undefined;
  // The top-level member being read, when it is one of WANTED.
  let member: string | undefined;
  const found = new Map<string, MemberValue>();

  let nextSlice = SCAN_SLICE_BYTES;
  while (at < body.length) {
    if (at >= nextSlice) {
      nextSlice = at + SCAN_SLICE_BYTES;
      await nextTurn();
    }
    const byte = body[at]!;
    if (isWhitespace(byte)) {
      at++;
      continue;
    }
    if (expect === 'colon') {
      if (byte !== COLON) return refused('the request body is not valid JSON');
      expect = 'value';
      at++;
      continue;
    }
    if (expect === 'after') {
      const container = open[open.length - 1];
      if (byte === COMMA && container !== undefined) {
        expect = container === OPEN_OBJECT ? 'name' : 'value';
        at++;
        continue;
      }
      if ((byte === CLOSE_OBJECT && container === OPEN_OBJECT) || (byte === CLOSE_ARRAY && container === OPEN_ARRAY)) {
        open.pop();
        at++;
        continue;
      }
      return refused('the request body is not valid JSON');
    }
    if (expect === 'name' || expect === 'first-name') {
      if (byte === CLOSE_OBJECT && expect === 'first-name') {
        open.pop();
        expect = 'after';
        at++;
        continue;
      }
      if (byte !== QUOTE) return refused('the request body is not valid JSON');
      const end = stringEnd(body, at);
      if (end < 0) return refused('the request body is not valid JSON');
      member = undefined;
      if (open.length === 1 && topLevel === 'request') {
        const name = wantedName(body, at, end);
        if (name === null) return refused('the request body is not valid JSON');
        if (name !== undefined) {
          if (found.has(name)) return refused(`the request body names the member "${name}" twice`);
          member = name;
        }
      }
      expect = 'colon';
      at = end;
      continue;
    }
    // A value.
    const atTop = open.length === 1 && topLevel === 'request';
    const wanted = atTop ? member : undefined;
    if (byte === CLOSE_ARRAY && expect === 'first-value') {
      open.pop();
      expect = 'after';
      at++;
      continue;
    }
    if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
      if (open.length === 0) {
        if (topLevel !== undefined) return refused('the request body is not valid JSON');
        topLevel = byte === OPEN_ARRAY ? 'batch' : 'request';
      }
      if (open.length >= MAX_JSON_DEPTH)
        return refused(`the request body nests deeper than ${MAX_JSON_DEPTH} arrays or objects`);
      if (wanted) found.set(wanted, NOT_A_STRING);
      open.push(byte);
      expect = byte === OPEN_OBJECT ? 'first-name' : 'first-value';
      at++;
      continue;
    }
    if (open.length === 0) return refused('the request body is not a JSON object');
    if (byte === QUOTE) {
      const end = stringEnd(body, at);
      if (end < 0) return refused('the request body is not valid JSON');
      if (wanted) {
        const value = stringValue(body, at, end);
        if (value === null) return refused('the request body is not valid JSON');
        found.set(wanted, value);
      }
      expect = 'after';
      at = end;
      continue;
    }
    if (!isScalarByte(byte)) return refused('the request body is not valid JSON');
    const start = at;
    while (at < body.length && isScalarByte(body[at]!)) at++;
    if (wanted) found.set(wanted, body.toString('latin1', start, at) === 'null' ? null : NOT_A_STRING);
    expect = 'after';
  }
  if (topLevel === undefined) return refused('the request body is empty: send a JSON object');
  if (open.length > 0 || expect !== 'after') return refused('the request body is not valid JSON');
  if (topLevel === 'batch') return { shape: 'batch' };
  return {
    shape: 'request',
    query: found.get('query'),
    operationName: found.get('operationName'),
    hasExtensions: found.has('extensions') && found.get('extensions') !== null,
  };
}
