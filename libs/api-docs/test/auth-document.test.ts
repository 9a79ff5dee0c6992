import SwaggerParser from '@apidevtools/swagger-parser';
import { authOpenApi } from '../src/auth';

type Operations = Record<string, Record<string, { operationId?: string }>>;

describe('the auth API document', () => {
  it('is a valid OpenAPI 3.1 document whose references all resolve', async () => {
    await expect(SwaggerParser.validate(structuredClone(authOpenApi()) as unknown as Parameters<typeof SwaggerParser.validate>[0])).resolves.toBeDefined();
  });

  it('has a unique operationId on every operation', () => {
    const ids = Object.values(authOpenApi().paths as Operations).flatMap((item) =>
      Object.entries(item)
        .filter(([method]) => method !== 'parameters')
        .map(([, operation]) => operation.operationId),
    );
    expect(ids.every((id) => typeof id === 'string')).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
