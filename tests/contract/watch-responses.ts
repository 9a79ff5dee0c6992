import type { ApiDocument } from '@platform/api-docs';
import { observe, openApiValidator } from '../support/openapi-validator';

export interface ResponseWatch {
  /** The operations (`METHOD /template`) a response was seen for. */
  seen: Set<string>;
  /** Every operation the document describes. */
  operations: string[];
  /** Each departure from the document, with the request that got it. */
  problems: string[];
  stop(): void;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

function operationsOf(document: ApiDocument): string[] {
  const paths = document.paths as Record<string, Record<string, unknown>>;
  return Object.entries(paths).flatMap(([template, item]) =>
    Object.keys(item)
      .filter((method) => METHODS.includes(method))
      .map((method) => `${method.toUpperCase()} ${template}`),
  );
}

function requestOf(
  input: Parameters<typeof fetch>[0],
  init: Parameters<typeof fetch>[1],
): { url: URL; method: string } {
  if (input instanceof Request) return { url: new URL(input.url), method: init?.method ?? input.method };
  return { url: new URL(String(input)), method: init?.method ?? 'GET' };
}

/**
 * Checks every response a test's `fetch` gets from `origin` against the document (a clone is read, so the
 * test reads the body as usual), and records which operations were exercised. Problems are collected, not
 * thrown, so a multi-step flow (a browser's redirects) runs to its end and the test reports them all.
 */
export function watchResponses(origin: string, document: ApiDocument): ResponseWatch {
  const validator = openApiValidator(document);
  const inner = globalThis.fetch;
  const watch: ResponseWatch = {
    seen: new Set(),
    operations: operationsOf(document),
    problems: [],
    stop: () => (globalThis.fetch = inner),
  };
  globalThis.fetch = async (input, init) => {
    const response = await inner(input, init);
    const { url, method } = requestOf(input, init);
    const request = { method, path: url.pathname };
    const operation = url.origin === origin ? validator.operation(request) : null;
    if (operation !== null) {
      watch.seen.add(operation);
      const found = validator.problems(request, await observe(response.clone()));
      watch.problems.push(
        ...found.map((problem) => `${method} ${url.pathname}${url.search} -> ${response.status}: ${problem}`),
      );
    }
    return response;
  };
  return watch;
}
