// The content interface's request and response shapes (zod, from 'zod/v4'): its app validates with them and
// libs/api-docs writes its OpenAPI document from them.
export { MAX_PAGE_SIZE, PageMeta } from './paging';
export { Taxon } from './taxonomy';
export { Post, PostId, PostListQuery, PostPage, PostPatch, PostWrite } from './posts';
export { REST_ROLES, type RestRole, User, UserId, UserListQuery, UserPage, UserPut } from './users';
export { Login, Refresh, Registered, Registration, Tokens } from './sign-in';
export { CodedError, SimpleError, ValidationError } from './errors';
