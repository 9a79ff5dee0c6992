import { UserListQuery } from '@platform/contracts';
import type { ApiDocument } from '../document';
import { queryParameter } from '../contract-schemas';
import { contentErrorResponses, contentErrorSchemas } from './errors';
import { contentSchemas } from './schemas';
import { contentSecuritySchemes } from './security';
import { authPaths } from './paths/auth';
import { graphqlPaths, graphqlSchemas } from './paths/graphql';
import { postPaths } from './paths/posts';
import { userPaths } from './paths/users';

/** Paging of the list operations, from the contract's query parameters (libs/contracts, content `paging.ts`). */
const pagingParameters = {
  Page: queryParameter('page', UserListQuery.shape.page),
  Limit: queryParameter('limit', UserListQuery.shape.limit),
};

/** OpenAPI 3.1 description of the content API as the gateway serves it: the REST blog API and the GraphQL endpoint. */
export function contentOpenApi(): ApiDocument {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Content API',
      version: '1.0.0',
      description:
        'Posts and profiles over REST (`/api/v1`, JSON) and GraphQL (`/graphql`). REST errors take one of three shapes: `{errors: {property: message}}` (400), `{error: message}` (403, 404), `{error: {code, message}}` (anything else). Every call but sign-in needs an access token of the authorization server (`/openapi/auth.json`).',
    },
    servers: [{ url: '/', description: 'The gateway that serves this document.' }],
    tags: [
      { name: 'Sign-in', description: 'Accounts and tokens for the blog’s own sign-in.' },
      { name: 'Posts' },
      { name: 'Users', description: 'Profiles; the credentials live at the authorization server.' },
      { name: 'GraphQL' },
    ],
    paths: { ...authPaths, ...userPaths, ...postPaths, ...graphqlPaths },
    components: {
      schemas: { ...contentSchemas, ...contentErrorSchemas, ...graphqlSchemas },
      responses: contentErrorResponses,
      parameters: pagingParameters,
      securitySchemes: contentSecuritySchemes,
    },
  };
}
