import { speechOpenApi } from '@platform/api-docs';
import { openApiValidator, type OpenApiValidator } from '../support/openapi-validator';

/**
 * Checks every response of the speech API that a test's `fetch` gets (the tests' own calls and the official
 * JS SDK's) against the speech API's OpenAPI document: status, media type and, for JSON, the body against
 * the operation's schema. A response that departs from the document fails the call that got it, with the
 * reasons. Only paths the document describes are checked (tests of unknown paths keep their own assertions);
 * newline-delimited JSON and Server-Sent Events are checked line by line (event by event) by the contract test, not here.
 */
const origins = new Set<string>();
let validator: OpenApiValidator | null = null;
let originalFetch: typeof fetch | null = null;

let templates: { template: string; pattern: RegExp }[] | null = null;

/** The document's path template a concrete path is an instance of (literal paths before templated ones), or null. */
export function speechPathTemplate(path: string): string | null {
  templates ??= Object.keys(speechOpenApi().paths as object)
    .map((template) => ({ template, pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`) }))
    .sort((a, b) => (a.template.match(/\{/g)?.length ?? 0) - (b.template.match(/\{/g)?.length ?? 0));
  return templates.find(({ pattern }) => pattern.test(path))?.template ?? null;
}

function requestOf(
  input: Parameters<typeof fetch>[0],
  init: Parameters<typeof fetch>[1],
): { url: URL; method: string } {
  if (input instanceof Request) return { url: new URL(input.url), method: init?.method ?? input.method };
  return { url: new URL(String(input)), method: init?.method ?? 'GET' };
}

async function check(
  v: OpenApiValidator,
  request: { method: string; path: string },
  response: Response,
): Promise<void> {
  const contentType = response.headers.get('content-type');
  const type = contentType?.split(';')[0]!.trim().toLowerCase() ?? '';
  if (type === 'application/x-ndjson' || type === 'text/event-stream') return;
  if (/[/+]json$/.test(type)) {
    const text = await response.clone().text();
    let body: unknown;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      throw new Error(
        `${request.method} ${request.path} answered ${response.status} with Content-Type ${contentType} but a body that is not JSON: ${text.slice(0, 200)}`,
      );
    }
    v.assertConforms(request, { status: response.status, contentType, body });
    return;
  }
  // Audio, ZIP or no body: the status and media type (the body is the test's to read).
  v.assertConforms(request, { status: response.status, contentType, body: '' });
}

/** Starts checking responses from `origin` (a gateway or the speech edge); the returned function stops it. */
export function checkSpeechResponses(origin: string): () => void {
  const base = new URL(origin).origin;
  origins.add(base);
  if (!originalFetch) {
    const inner = globalThis.fetch;
    originalFetch = inner;
    validator ??= openApiValidator(speechOpenApi());
    const v = validator;
    globalThis.fetch = async (input, init) => {
      const response = await inner(input, init);
      const { url, method } = requestOf(input, init);
      if (
        origins.has(url.origin) &&
        method !== 'HEAD' &&
        method !== 'OPTIONS' &&
        /^\/v[12]\//.test(url.pathname) &&
        speechPathTemplate(url.pathname) !== null
      ) {
        await check(v, { method, path: url.pathname }, response);
      }
      return response;
    };
  }
  return () => {
    origins.delete(base);
    if (origins.size === 0 && originalFetch) {
      globalThis.fetch = originalFetch;
      originalFetch = null;
    }
  };
}
