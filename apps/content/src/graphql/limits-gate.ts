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

/**
 * Refuses an operation over the query limits (limits.ts) before Apollo validates it: validation's
 * overlapping-fields check is quadratic in repeated selections, so a body full of them would cost
 * seconds of CPU before the budget was looked at. Apollo's hooks cannot refuse a request before
 * validation (an error thrown there becomes a 500), hence this step in front of it. Anything it
 * cannot read (no query, a syntax error) goes on to Apollo, which answers it in its own way.
 */
export function limitsGate(maxCost?: number): (req: Request, res: Response, next: NextFunction) => void {
  return (req, res, next) => {
    const source: unknown = req.method === 'GET' ? req.query : req.body;
    if (typeof source !== 'object' || source === null || Array.isArray(source)) return next();
    const { query, variables } = source as { query?: unknown; variables?: unknown };
    if (typeof query !== 'string') return next();
    let document: DocumentNode;
    try {
      document = parse(query);
    } catch {
      return next();
    }
    const error = checkLimits(document, variablesOf(variables), { maxCost });
    if (!error) return next();
    const { http: _http, ...extensions } = error.extensions;
    res.status(400).json({ errors: [{ message: error.message, extensions }] });
  };
}
