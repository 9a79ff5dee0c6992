import { speechOpenApi } from '@platform/api-docs';
import { openApiValidator } from '../support/openapi-validator';

type Media = { example?: unknown; schema?: unknown };
type Operation = { responses?: Record<string, { content?: Record<string, Media> }> };

/** The speech API document's response examples are answers the document itself allows (readers copy them). */
describe('the speech API document’s examples', () => {
  const document = speechOpenApi();
  const validator = openApiValidator(document);
  const examples = Object.entries(document.paths as Record<string, Record<string, Operation>>).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => method !== 'parameters')
      .flatMap(([method, operation]) =>
        Object.entries(operation.responses ?? {}).flatMap(([status, response]) =>
          Object.entries(response.content ?? {})
            .filter(([, media]) => media.example !== undefined)
            .map(([type, media]) => ({
              name: `${method.toUpperCase()} ${path} ${status} ${type}`,
              method,
              path,
              status: Number(status),
              type,
              example: media.example,
            })),
        ),
      ),
  );

  it('cover the main operations and every error response', () => {
    expect(examples.length).toBeGreaterThan(26 * 6);
    expect(examples.map((e) => e.name)).toEqual(
      expect.arrayContaining([
        'GET /v1/models 200 application/json',
        'POST /v1/text-to-speech/{voice_id}/with-timestamps 200 application/json',
        'POST /v1/voices/add 200 application/json',
        'POST /v1/api-keys 201 application/json',
      ]),
    );
  });

  it.each(examples.map((e) => [e.name, e] as const))('%s conforms', (_name, e) => {
    expect(
      validator.problems(
        { method: e.method, path: e.path },
        { status: e.status, contentType: e.type, body: e.example },
      ),
    ).toEqual([]);
  });
});
