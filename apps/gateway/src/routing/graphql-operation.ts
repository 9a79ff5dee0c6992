import { setImmediate as nextTurn } from 'node:timers/promises';
import { NOT_A_STRING, SCAN_SLICE_BYTES, type GraphqlBody, type MemberValue } from './graphql-body';

export type OperationKind = 'query' | 'mutation' | 'subscription' | 'unknown';

interface Operation {
  kind: Exclude<OperationKind, 'unknown'>;
  name: string | undefined;
}

const OPERATION_KEYWORDS: ReadonlySet<string> = new Set(['query', 'mutation', 'subscription']);

function isNameStart(code: number): boolean {
  return (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) || code === 0x5f;
}

function isNameContinue(code: number): boolean {
  return isNameStart(code) || (code >= 0x30 && code <= 0x39);
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Whether the text has three quotes at `at`. */
function tripleQuote(text: string, at: number): boolean {
  return text.charCodeAt(at) === QUOTE && text.charCodeAt(at + 1) === QUOTE && text.charCodeAt(at + 2) === QUOTE;
}

/** The index just past the string or block string that opens at `start` (GraphQL's lexer rules), or -1. */
function stringEnd(text: string, start: number): number {
  if (tripleQuote(text, start)) {
    let at = start + 3;
    while (at < text.length) {
      const code = text.charCodeAt(at);
      if (code === QUOTE && tripleQuote(text, at)) return at + 3;
      // A backslash before three quotes is the one escape of a block string.
      at += code === BACKSLASH && tripleQuote(text, at + 1) ? 4 : 1;
    }
    return -1;
  }
  let at = start + 1;
  while (at < text.length) {
    const code = text.charCodeAt(at);
    if (code === QUOTE) return at + 1;
    // A line terminator ends nothing in a string: GraphQL refuses the document, and so does this.
    if (code === 0x0a || code === 0x0d) return -1;
    at += code === BACKSLASH ? 2 : 1;
  }
  return -1;
}

/**
 * The operations a document defines at its top level, found without parsing it: one pass over the
 * text that skips strings, block strings and comments as GraphQL's lexer does, counts brackets, and
 * reads only the keyword and name that open each definition. Its time is linear in the text and it
 * holds no tree, so no text costs more than reading it; the event loop gets a turn every `SCAN_SLICE_BYTES`
 * characters. A document it cannot follow is `null`
 * (GraphQL would refuse it too, or it holds definitions content does not execute).
 */
async function topLevelOperations(text: string): Promise<Operation[] | null> {
  const operations: Operation[] = [];
  let depth = 0;
  // At depth 0: between definitions; after an operation keyword (its name may follow); in a
  // definition's header (variables, directives, a fragment's type condition) before its `{`.
  let state: 'between' | 'keyword' | 'header' = 'between';
  let current: Operation | undefined;
  let at = 0;
  // The event loop gets a turn between slices, as in graphql-body.ts.
  let nextSlice = SCAN_SLICE_BYTES;
  while (at < text.length) {
    if (at >= nextSlice) {
      nextSlice = at + SCAN_SLICE_BYTES;
      await nextTurn();
    }
    const code = text.charCodeAt(at);
    // Ignored tokens: white space, line terminators, commas, the byte order mark, comments.
    if (code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d || code === 0x2c || code === 0xfeff) {
      at++;
      continue;
    }
    if (code === 0x23) {
      while (at < text.length && text.charCodeAt(at) !== 0x0a && text.charCodeAt(at) !== 0x0d) at++;
      continue;
    }
    if (code === 0x22) {
      const end = stringEnd(text, at);
      if (end < 0) return null;
      // A string between definitions is a description: GraphQL takes one only before a definition.
      if (depth === 0 && state !== 'between') return null;
      at = end;
      continue;
    }
    if (code === 0x7b || code === 0x28 || code === 0x5b) {
      if (depth === 0) {
        if (code === 0x7b && state === 'between') {
          // `{ … }`: the query shorthand, an anonymous query.
          current = { kind: 'query', name: undefined };
          operations.push(current);
        } else if (code === 0x7b) {
          current = undefined;
        } else if (state === 'between') {
          return null;
        }
        state = code === 0x7b ? 'between' : 'header';
      }
      depth++;
      at++;
      continue;
    }
    if (code === 0x7d || code === 0x29 || code === 0x5d) {
      if (depth === 0) return null;
      depth--;
      at++;
      continue;
    }
    if (isNameStart(code)) {
      const start = at;
      while (at < text.length && isNameContinue(text.charCodeAt(at))) at++;
      if (depth > 0) continue;
      const name = text.slice(start, at);
      if (state === 'between') {
        if (OPERATION_KEYWORDS.has(name)) {
          current = { kind: name as Operation['kind'], name: undefined };
          operations.push(current);
          state = 'keyword';
        } else if (name === 'fragment') {
          state = 'header';
        } else {
          // Type system definitions and extensions: content executes no document that has one.
          return null;
        }
      } else if (state === 'keyword') {
        if (current) current.name = name;
        state = 'header';
      }
      continue;
    }
    // Any other punctuator or number: only inside a definition (`$`, `!`, `:`, `@`, `=`, `...`, `|`, `&`, values).
    if (depth === 0 && state === 'between') return null;
    if (depth === 0 && state === 'keyword') state = 'header';
    at++;
  }
  // A definition left open, or no definition at all: GraphQL refuses the document.
  if (depth !== 0 || state !== 'between' || operations.length === 0) return null;
  return operations;
}

/**
 * The kind of the operation a document runs with this operation name, as GraphQL selects it
 * (`getOperationAST`): the one named, or the only one when no name is given. Should two share the
 * name (GraphQL's validation refuses that), the stricter kind counts: a mutation is never taken for
 * a query.
 */
export async function operationKind(query: string, operationName: string | undefined): Promise<OperationKind> {
  const operations = await topLevelOperations(query);
  if (!operations) return 'unknown';
  const chosen =
    operationName === undefined
      ? operations.length === 1
        ? operations
        : []
      : operations.filter((op) => op.name === operationName);
  if (chosen.length === 0) return 'unknown';
  if (chosen.some((op) => op.kind === 'mutation')) return 'mutation';
  return chosen[0]!.kind;
}

function text(value: MemberValue): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/**
 * The kind of a GraphQL-over-HTTP POST, so the gateway can require `content:write` for mutations and
 * `content:read` otherwise. What content will not run (no document, a syntax error, a name that
 * selects nothing) is `unknown`: content answers it with its own error. Two kinds of request are
 * taken as mutations without looking further, because the gateway cannot see what they would run:
 * a batch (a JSON array; content executes none today, and the strictest kind stays safe should it
 * ever), and a request without a query text but with `extensions` (an automatic persisted query sent
 * by its hash alone: the text content remembered for that hash may be a mutation).
 */
export async function graphqlOperationKind(body: Exclude<GraphqlBody, { shape: 'refused' }>): Promise<OperationKind> {
  if (body.shape === 'batch') return 'mutation';
  const query = text(body.query);
  if (query === undefined) return body.hasExtensions ? 'mutation' : 'unknown';
  // A name that is not a string (or null) is refused by content before anything runs.
  if (body.operationName === NOT_A_STRING) return 'unknown';
  return operationKind(query, text(body.operationName));
}

/** The same for a GET, from its URL's parameters (content runs only queries over GET). */
export async function graphqlOperationKindFromQueryString(
  query: unknown,
  operationName: unknown,
): Promise<OperationKind> {
  if (typeof query !== 'string') return 'unknown';
  return operationKind(query, typeof operationName === 'string' ? operationName : undefined);
}
