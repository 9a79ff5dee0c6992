/**
 * How deep a JSON request body may nest arrays and objects. Requests need a handful of levels;
 * `JSON.parse` spends far more per byte on nesting than on anything else (a megabyte of `[[[…]]]`
 * took ~300 ms, 512 KiB ~60 ms), so the apps refuse deeper bodies before parsing them.
 */
export const MAX_JSON_DEPTH = 32;

/** Thrown by `refuseDeepJson` as body-parser's `verify`: a 400 whose `type` the apps' error handlers name. */
export const JSON_TOO_DEEP = 'entity.too.deep';

/** Whether JSON text nests arrays and objects deeper than `max`: one pass over the bytes, strings skipped, nothing parsed. */
export function jsonNestsDeeperThan(body: Uint8Array, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  for (let at = 0; at < body.length; at++) {
    const byte = body[at];
    if (byte === 0x22) {
      for (at++; at < body.length; at++) {
        const inString = body[at];
        if (inString === 0x5c) at++;
        else if (inString === 0x22) break;
      }
    } else if (byte === 0x5b || byte === 0x7b) {
      if (++depth > max) return true;
    } else if (byte === 0x5d || byte === 0x7d) {
      depth--;
    }
  }
  return false;
}

/** body-parser's `verify` option: refuses (400, type `JSON_TOO_DEEP`) a body nested deeper than `MAX_JSON_DEPTH` before it is parsed. */
export function refuseDeepJson(_req: unknown, _res: unknown, body: Buffer): void {
  if (jsonNestsDeeperThan(body)) {
    throw Object.assign(new Error(`the JSON body nests deeper than ${MAX_JSON_DEPTH} arrays or objects`), {
      status: 400,
      type: JSON_TOO_DEEP,
    });
  }
}
