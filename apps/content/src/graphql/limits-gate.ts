import type { NextFunction, Request, Response } from 'express';
import { parse, type DocumentNode } from 'graphql';
import { checkLimits } from './limits';

function variablesOf(value: unknown): Record<string, unknown> {
  if (typeof value === 'string') {
    try {
      return variablesOf(JSON.parse(value));
    } catch {
      return {};
    }
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** Operations remembered as within the limits, at most, and the longest text and variables remembered (so the memo holds at most 16 MB, two bytes a character). */
const PASSED_MAX = 1000;
const PASSED_KEY_MAX_CHARS = 8192;

/** Set on `res.locals` when the gate found the request's operation within the limits: Apollo's own check is then not repeated. */
const LIMITS_CHECKED = 'graphqlLimitsChecked';

export function limitsChecked(res: Response): boolean {
  return res.locals[LIMITS_CHECKED] === true;
}

/**
 * Refuses an operation over the query limits (limits.ts) before Apollo validates it: validation's
 * overlapping-fields check is quadratic in repeated selections, so a body full of them would cost
 * seconds of CPU before the budget was looked at. Apollo's hooks cannot refuse a request before
 * validation (an error thrown there becomes a 500), hence this step in front of it. Anything it
 * cannot read (no query, a syntax error, a persisted query sent by hash alone) goes on to Apollo,
 * which answers it in its own way and checks the limits itself once it has the document.
 *
 * The verdict depends on the text and the variables alone, so an operation found within the limits
 * is remembered by both and not parsed and measured again when it comes back (most traffic is the
 * same few operations); the oldest is forgotten first.
 */
export function limitsGate(maxCost?: number): (req: Request, res: Response, next: NextFunction) => void {
  const passed = new Set<string>();
  return (req, res, next) => {
    const source: unknown = req.method === 'GET' ? req.query : req.body;
    if (typeof source !== 'object' || source === null || Array.isArray(source)) return next();
    const { query, variables } = source as { query?: unknown; variables?: unknown };
    if (typeof query !== 'string') return next();
    const vars = variablesOf(variables);
    const joined = `${JSON.stringify(vars)}\u0000${query}`;
    const key = joined.length <= PASSED_KEY_MAX_CHARS ? joined : undefined;
    if (key !== undefined && passed.has(key)) {
      res.locals[LIMITS_CHECKED] = true;
      return next();
    }
    let document: DocumentNode;
    try {
      document = parse(query);
    } catch {
      return next();
    }
    const error = checkLimits(document, vars, { maxCost });
    if (!error) {
      if (key !== undefined) {
        if (passed.size >= PASSED_MAX) passed.delete(passed.values().next().value!);
        passed.add(key);
      }
      res.locals[LIMITS_CHECKED] = true;
      return next();
    }
    const { http: _http, ...extensions } = error.extensions;
    res.status(400).json({ errors: [{ message: error.message, extensions }] });
  };
}
