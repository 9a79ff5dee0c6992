import SwaggerParser from '@apidevtools/swagger-parser';
import { SETTABLE_POST_STATUSES, SETTABLE_USER_STATUSES } from '@platform/events';
import { contentOpenApi } from '../src/content';

describe('the content API document', () => {
  it('is a valid OpenAPI 3.1 document whose references all resolve', async () => {
    await expect(
      SwaggerParser.validate(
        structuredClone(contentOpenApi()) as unknown as Parameters<typeof SwaggerParser.validate>[0],
      ),
    ).resolves.toBeDefined();
  });

  it('describes every REST route of content and the GraphQL endpoint, each with an operationId', () => {
    const paths = contentOpenApi().paths as Record<string, Record<string, { operationId?: string }>>;
    const operations = Object.entries(paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([method]) => method !== 'parameters')
        .map(([method, operation]) => `${method.toUpperCase()} ${path} ${operation.operationId ?? '(none)'}`),
    );
    expect(operations.sort()).toEqual(
      [
        'POST /api/v1/auth/register register',
        'POST /api/v1/auth/login login',
        'POST /api/v1/auth/refresh refresh',
        'GET /api/v1/users listUsers',
        'PUT /api/v1/users replaceOwnProfile',
        'GET /api/v1/users/me getOwnProfile',
        'GET /api/v1/users/{id} getUser',
        'PUT /api/v1/users/{id} replaceUser',
        'GET /api/v1/posts listPosts',
        'POST /api/v1/posts createPost',
        'GET /api/v1/posts/{id} getPost',
        'PUT /api/v1/posts/{id} replacePost',
        'PATCH /api/v1/posts/{id} updatePost',
        'DELETE /api/v1/posts/{id} deletePost',
        'POST /graphql graphqlPost',
        'GET /graphql graphqlGet',
      ].sort(),
    );
  });

  it('offers the statuses a write may set (libs/events), not the retired ones', () => {
    type Schemas = Record<string, { properties: Record<string, { enum?: string[] }> }>;
    const schemas = (contentOpenApi().components as { schemas: Schemas }).schemas;
    expect(schemas.User!.properties.status!.enum).toEqual([...SETTABLE_USER_STATUSES]);
    expect(schemas.UserPut!.properties.status!.enum).toEqual([...SETTABLE_USER_STATUSES]);
    expect(schemas.Post!.properties.status!.enum).toEqual([...SETTABLE_POST_STATUSES]);
  });
});
