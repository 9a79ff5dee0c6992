import Ajv2020 from 'ajv/dist/2020';
import type { ValidateFunction } from 'ajv';
import { fullFormats } from 'ajv-formats/dist/formats';
import type { ApiDocument, JsonValue } from '@platform/api-docs';

/** What a test saw: the status, the Content-Type header (null when absent) and the parsed body (undefined when empty). */
export type ObservedResponse = { status: number; contentType: string | null; body: unknown };

/** The operation a response answered: the HTTP method and the concrete path the request went to (no query). */
export type ObservedRequest = { method: string; path: string };

export type OpenApiValidator = {
  /** `METHOD /template` of the document's operation that serves the request, or null when it has none. */
  operation(request: ObservedRequest): string | null;
  /** Every way the response departs from the document's operation; empty when it conforms. */
  problems(request: ObservedRequest, response: ObservedResponse): string[];
  /** Throws an error listing the problems, so a test fails with the reason. */
  assertConforms(request: ObservedRequest, response: ObservedResponse): void;
};

type JsonObject = { [key: string]: JsonValue };

const DOCUMENT_ID = 'openapi:document';
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** JSON Pointer escaping (RFC 6901), for the references ajv resolves inside the document. */
function pointerToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Follows a local `$ref` (OpenAPI allows them for path items, responses and media types, not only schemas). */
function resolve(
  document: ApiDocument,
  value: JsonValue | undefined,
): { value: JsonValue | undefined; pointer?: string } {
  if (!isObject(value) || typeof value.$ref !== 'string') return { value };
  const ref = value.$ref;
  if (!ref.startsWith('#/')) throw new Error(`only local references are supported, got ${ref}`);
  let target: JsonValue | undefined = document;
  for (const raw of ref.slice(2).split('/')) {
    const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    target = isObject(target) ? target[token] : undefined;
  }
  if (target === undefined) throw new Error(`unresolved reference ${ref}`);
  const inner = resolve(document, target);
  return { value: inner.value, pointer: inner.pointer ?? ref.slice(1) };
}

/** The document's path template that matches a concrete path; literal templates win over templated ones. */
function findTemplate(paths: JsonObject, path: string): string | undefined {
  const templates = Object.keys(paths).filter((template) => {
    const pattern = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+');
    return new RegExp(`^${pattern}$`).test(path);
  });
  templates.sort((a, b) => (a.match(/\{/g)?.length ?? 0) - (b.match(/\{/g)?.length ?? 0));
  return templates[0];
}

/** The response key that covers a status: the exact code, then its range (`4XX`), then `default`. */
function findStatusKey(responses: JsonObject, status: number): string | undefined {
  return [String(status), `${String(status)[0]}XX`, 'default'].find((key) => key in responses);
}

function mediaType(contentType: string | null): string | null {
  return contentType === null ? null : contentType.split(';')[0]!.trim().toLowerCase();
}

/** Validates responses against an OpenAPI 3.1 document; its schemas are JSON Schema 2020-12 (OpenAPI 3.1 §4.8.24). */
export function openApiValidator(document: ApiDocument): OpenApiValidator {
  // OpenAPI adds annotation keywords (example, discriminator, xml, externalDocs) that strict mode would reject.
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  // The formats one by one rather than through ajv-formats' plugin: npm installs the plugin with its own copy of
  // ajv, whose class the compiler would not accept as ours.
  for (const [name, format] of Object.entries(fullFormats)) ajv.addFormat(name, format);
  ajv.addSchema(document as object, DOCUMENT_ID);
  const compiled = new Map<string, ValidateFunction>();

  function validatorAt(pointer: string): ValidateFunction {
    let validate = compiled.get(pointer);
    if (!validate) {
      validate = ajv.compile({ $ref: `${DOCUMENT_ID}#${pointer}` });
      compiled.set(pointer, validate);
    }
    return validate;
  }

  function problems(request: ObservedRequest, response: ObservedResponse): string[] {
    const method = request.method.toLowerCase();
    if (!HTTP_METHODS.includes(method)) return [`${request.method} is not an HTTP method OpenAPI describes`];
    const paths = isObject(document.paths) ? document.paths : {};
    const template = findTemplate(paths, request.path);
    if (template === undefined) return [`no path in the document matches ${request.path}`];
    const pathResolved = resolve(document, paths[template]);
    const pathItem = pathResolved.value;
    const operation = isObject(pathItem) ? pathItem[method] : undefined;
    const where = `${request.method.toUpperCase()} ${template}`;
    if (!isObject(operation)) return [`the document has no operation ${where}`];
    const responses = isObject(operation.responses) ? operation.responses : {};
    const statusKey = findStatusKey(responses, response.status);
    if (statusKey === undefined) return [`${where} does not document status ${response.status}`];

    const pathPointer = pathResolved.pointer ?? `/paths/${pointerToken(template)}`;
    let responsePointer = `${pathPointer}/${method}/responses/${pointerToken(statusKey)}`;
    const resolved = resolve(document, responses[statusKey]);
    if (resolved.pointer) responsePointer = resolved.pointer;
    const described = resolved.value;
    const content = isObject(described) && isObject(described.content) ? described.content : undefined;
    const observedType = mediaType(response.contentType);
    if (content === undefined) {
      return response.body === undefined || response.body === ''
        ? []
        : [`${where} ${statusKey} documents no body, got ${observedType}`];
    }
    const documentedTypes = Object.keys(content);
    const typeKey =
      documentedTypes.find((type) => type.toLowerCase() === observedType) ??
      documentedTypes.find((type) => type === '*/*');
    if (typeKey === undefined) {
      return [
        `${where} ${statusKey} documents ${documentedTypes.join(', ')}, got ${observedType ?? 'no Content-Type'}`,
      ];
    }
    const media = content[typeKey];
    if (!isObject(media) || media.schema === undefined) return [];
    const validate = validatorAt(`${responsePointer}/content/${pointerToken(typeKey)}/schema`);
    if (validate(response.body)) return [];
    return (validate.errors ?? []).map(
      (error) =>
        `${where} ${statusKey} ${typeKey}: body${error.instancePath} ${error.message ?? 'is invalid'} (${error.schemaPath})`,
    );
  }

  function operation(request: ObservedRequest): string | null {
    const method = request.method.toLowerCase();
    const paths = isObject(document.paths) ? document.paths : {};
    const template = findTemplate(paths, request.path);
    if (template === undefined) return null;
    const pathItem = resolve(document, paths[template]).value;
    return isObject(pathItem) && isObject(pathItem[method]) ? `${method.toUpperCase()} ${template}` : null;
  }

  return {
    operation,
    problems,
    assertConforms(request, response) {
      const found = problems(request, response);
      if (found.length > 0) {
        throw new Error(
          `response does not conform to the document:\n${found.join('\n')}\nbody: ${JSON.stringify(response.body)}`,
        );
      }
    },
  };
}

/** Reads a fetch Response into the shape the validator checks (the body is consumed). */
export async function observe(response: Response): Promise<ObservedResponse> {
  const contentType = response.headers.get('content-type');
  const text = await response.text();
  let body: unknown = text === '' ? undefined : text;
  if (text !== '' && /[/+]json\b/.test(mediaType(contentType) ?? '')) {
    try {
      body = JSON.parse(text) as unknown;
    } catch {
      // Not JSON after all: left as text, which no JSON schema of an object accepts.
    }
  }
  return { status: response.status, contentType, body };
}
