import { PostId, PostListQuery } from '@platform/contracts';
import { jsonContent, jsonResponse, parameterRef, schemaRef, type JsonObject } from '../../speech/json-helpers';
import { contentErrors } from '../errors';
import { pathParameter, queryParameter } from '../../contract-schemas';
import { contentToken } from '../security';

const read = { tags: ['Posts'], security: contentToken('content:read') };
const write = { tags: ['Posts'], security: contentToken('content:write') };
const postId: JsonObject = {
  ...pathParameter('id', PostId),
  description: 'A positive integer; anything else names no post (404).',
};
const onePost = (description: string): JsonObject => jsonResponse(description, schemaRef('Post'));
const ownerOnly = 'Only the author or ROLE_ADMIN may do this (403 otherwise).';

/** `/api/v1/posts` (apps/content/src/posts/post-routes.ts). */
export const postPaths: JsonObject = {
  '/api/v1/posts': {
    get: {
      ...read,
      operationId: 'listPosts',
      summary: 'Published posts, newest first',
      description:
        'A page past the end is `data: []`. Unknown, repeated or bracketed query parameters are a 400 naming them.',
      parameters: [
        parameterRef('Page'),
        parameterRef('Limit'),
        queryParameter('category', PostListQuery.shape.category),
        queryParameter('tag', PostListQuery.shape.tag),
      ],
      responses: { '200': jsonResponse('One page of posts.', schemaRef('PostPage')), ...contentErrors(401, 403) },
    },
    post: {
      ...write,
      operationId: 'createPost',
      summary: 'Create a post; the caller is its author',
      requestBody: { required: true, content: jsonContent(schemaRef('PostWrite')) },
      responses: { '201': onePost('The new post.'), ...contentErrors(401, 403, 409, 413, 415) },
    },
  },
  '/api/v1/posts/{id}': {
    parameters: [postId],
    get: {
      ...read,
      operationId: 'getPost',
      summary: 'One post (counts a view)',
      description: 'An unpublished post is a 404 unless the caller is its author, a moderator or an admin.',
      responses: { '200': onePost('The post.'), ...contentErrors(401, 403, 404) },
    },
    put: {
      ...write,
      operationId: 'replacePost',
      summary: 'Replace a post',
      description: `\`published\`, \`category\` and \`tags\` left out reset to false, null and []. ${ownerOnly}`,
      requestBody: { required: true, content: jsonContent(schemaRef('PostWrite')) },
      responses: { '200': onePost('The post as it is now.'), ...contentErrors(401, 403, 404, 409, 413, 415) },
    },
    patch: {
      ...write,
      operationId: 'updatePost',
      summary: 'Change some properties of a post',
      description: ownerOnly,
      requestBody: { required: true, content: jsonContent(schemaRef('PostPatch')) },
      responses: { '200': onePost('The post as it is now.'), ...contentErrors(401, 403, 404, 409, 413, 415) },
    },
    delete: {
      ...write,
      operationId: 'deletePost',
      summary: 'Delete a post and its comments',
      description: ownerOnly,
      responses: { '204': { description: 'Deleted; no body.' }, ...contentErrors(401, 403, 404) },
    },
  },
};
