import type { ApiDocument } from '@platform/api-docs';
import { observe, openApiValidator } from './openapi-validator';

const document: ApiDocument = {
  openapi: '3.1.0',
  info: { title: 'Example', version: '1' },
  paths: {
    '/items/{id}': {
      get: {
        responses: {
          '200': {
            description: 'one item',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Item' } } },
          },
          '404': { $ref: '#/components/responses/NotFound' },
          '5XX': { description: 'server error' },
        },
      },
      delete: { responses: { '204': { description: 'deleted' } } },
    },
    '/items/mine': {
      get: {
        responses: {
          '200': { description: 'literal path', content: { 'text/plain': { schema: { type: 'string' } } } },
        },
      },
    },
  },
  components: {
    schemas: {
      Item: {
        type: 'object',
        required: ['id', 'created'],
        properties: {
          id: { type: 'string' },
          created: { type: 'string', format: 'date-time' },
          note: { type: ['string', 'null'] },
        },
        additionalProperties: false,
        example: { id: 'a', created: '2026-01-01T00:00:00Z' },
      },
    },
    responses: {
      NotFound: {
        description: 'not found',
        content: {
          'application/json': {
            schema: { type: 'object', required: ['error'], properties: { error: { type: 'string' } } },
          },
        },
      },
    },
  },
};

const validator = openApiValidator(document);
const json = 'application/json; charset=utf-8';

describe('openApiValidator', () => {
  it('accepts a response that matches its operation, following $refs to schemas and responses', () => {
    expect(
      validator.problems(
        { method: 'GET', path: '/items/a1' },
        { status: 200, contentType: json, body: { id: 'a1', created: '2026-01-01T00:00:00Z', note: null } },
      ),
    ).toEqual([]);
    expect(
      validator.problems(
        { method: 'GET', path: '/items/a1' },
        { status: 404, contentType: json, body: { error: 'no such item' } },
      ),
    ).toEqual([]);
    expect(
      validator.problems({ method: 'delete', path: '/items/a1' }, { status: 204, contentType: null, body: undefined }),
    ).toEqual([]);
  });

  it('reports a body that breaks the schema, formats included (JSON Schema 2020-12)', () => {
    const found = validator.problems(
      { method: 'GET', path: '/items/a1' },
      { status: 200, contentType: json, body: { id: 1, created: 'yesterday', extra: true } },
    );
    expect(found.join('\n')).toMatch(/body\/id must be string/);
    expect(found.join('\n')).toMatch(/body\/created must match format "date-time"/);
    expect(found.join('\n')).toMatch(/must NOT have additional properties/);
  });

  it('reports an undocumented status, a content type the operation does not send, and an unknown path or method', () => {
    expect(
      validator.problems({ method: 'GET', path: '/items/a1' }, { status: 418, contentType: json, body: {} }),
    ).toEqual(['GET /items/{id} does not document status 418']);
    expect(
      validator.problems({ method: 'GET', path: '/items/a1' }, { status: 200, contentType: 'text/html', body: '<p>' }),
    ).toEqual(['GET /items/{id} 200 documents application/json, got text/html']);
    expect(validator.problems({ method: 'GET', path: '/other' }, { status: 200, contentType: json, body: {} })).toEqual(
      ['no path in the document matches /other'],
    );
    expect(
      validator.problems({ method: 'PUT', path: '/items/a1' }, { status: 200, contentType: json, body: {} }),
    ).toEqual(['the document has no operation PUT /items/{id}']);
    expect(
      validator.problems({ method: 'DELETE', path: '/items/a1' }, { status: 204, contentType: json, body: { x: 1 } }),
    ).toEqual(['DELETE /items/{id} 204 documents no body, got application/json']);
  });

  it('covers a status by its range and prefers a literal path over a template', () => {
    expect(
      validator.problems({ method: 'GET', path: '/items/a1' }, { status: 503, contentType: null, body: undefined }),
    ).toEqual([]);
    expect(
      validator.problems(
        { method: 'GET', path: '/items/mine' },
        { status: 200, contentType: 'text/plain', body: 'mine' },
      ),
    ).toEqual([]);
  });

  it('throws the problems and the body from assertConforms', () => {
    expect(() =>
      validator.assertConforms({ method: 'GET', path: '/items/a1' }, { status: 404, contentType: json, body: {} }),
    ).toThrow(/GET \/items\/\{id\} 404 application\/json: body must have required property 'error'[\s\S]*body: \{\}/);
  });

  it('reads a fetch Response: JSON bodies parsed, others as text, empty as undefined', async () => {
    await expect(
      observe(new Response('{"a":1}', { status: 200, headers: { 'content-type': 'application/problem+json' } })),
    ).resolves.toEqual({
      status: 200,
      contentType: 'application/problem+json',
      body: { a: 1 },
    });
    await expect(
      observe(new Response('hi', { status: 200, headers: { 'content-type': 'text/plain' } })),
    ).resolves.toMatchObject({ body: 'hi' });
    await expect(observe(new Response(null, { status: 204 }))).resolves.toEqual({
      status: 204,
      contentType: null,
      body: undefined,
    });
  });
});

describe('operation', () => {
  it('names the operation that serves a request, or null', () => {
    expect(validator.operation({ method: 'get', path: '/items/a1' })).toBe('GET /items/{id}');
    expect(validator.operation({ method: 'GET', path: '/items/mine' })).toBe('GET /items/mine');
    expect(validator.operation({ method: 'PUT', path: '/items/a1' })).toBeNull();
    expect(validator.operation({ method: 'GET', path: '/nothing' })).toBeNull();
  });
});
