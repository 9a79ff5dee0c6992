import type { NextFunction, Request, Response } from 'express';
import { limitsChecked, limitsGate } from '../src/graphql/limits-gate';

/** The gate's answer to one request: passed on (and whether it says the limits were checked), or refused with a status. */
function ask(
  gate: ReturnType<typeof limitsGate>,
  body: unknown,
): { passed: boolean; checked: boolean; status?: number } {
  let status: number | undefined;
  const res = {
    locals: {},
    status(code: number) {
      status = code;
      return this;
    },
    json() {
      return this;
    },
  } as unknown as Response;
  let passed = false;
  gate({ method: 'POST', body } as Request, res, (() => (passed = true)) as NextFunction);
  return { passed, checked: limitsChecked(res), ...(status !== undefined ? { status } : {}) };
}

const PAGE =
  'query ($n: Int) { posts(first: $n) { edges { node { title comments(first: 50) { edges { node { content } } } } } } }';

describe('limitsGate', () => {
  it('passes an operation within the limits and says it checked them, the first time and when it comes back', () => {
    const gate = limitsGate(5000);
    expect(ask(gate, { query: PAGE, variables: { n: 2 } })).toEqual({ passed: true, checked: true });
    expect(ask(gate, { query: PAGE, variables: { n: 2 } })).toEqual({ passed: true, checked: true });
  });

  it('refuses the same text with variables that take it over the budget, after it passed with others', () => {
    const gate = limitsGate(5000);
    expect(ask(gate, { query: PAGE, variables: { n: 2 } })).toEqual({ passed: true, checked: true });
    expect(ask(gate, { query: PAGE, variables: { n: 100 } })).toEqual({ passed: false, checked: false, status: 400 });
    expect(ask(gate, { query: PAGE, variables: { n: 100 } })).toEqual({ passed: false, checked: false, status: 400 });
  });

  it('leaves what it cannot read to Apollo, unchecked', () => {
    const gate = limitsGate(5000);
    expect(ask(gate, { query: '{ posts(' })).toEqual({ passed: true, checked: false });
    expect(ask(gate, { extensions: { persistedQuery: { version: 1, sha256Hash: 'a'.repeat(64) } } })).toEqual({
      passed: true,
      checked: false,
    });
  });
});
