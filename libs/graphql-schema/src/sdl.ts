import {
  POST_STATUSES,
  RETIRED_POST_STATUSES,
  RETIRED_ROLES,
  RETIRED_USER_STATUSES,
  USER_ROLES,
  USER_STATUSES,
} from '@platform/events';

/**
 * A closed list's GraphQL enum, written from its owner (libs/events closed-lists.ts) so the schema cannot
 * drift from the models and snapshots; the retired values are kept, deprecated.
 */
function enumType(name: string, values: readonly string[], retired: readonly string[], reason: string): string {
  const deprecated = ` @deprecated(reason: ${JSON.stringify(reason)})`;
  const lines = values.map((value) => `  ${value}${retired.includes(value) ? deprecated : ''}`);
  return `enum ${name} {\n${lines.join('\n')}\n}`;
}

/**
 * The content API's GraphQL schema, kept once: content serves Query and Mutation, the gateway
 * serves Subscription from Kafka events. Where the interface lists variants we take the fuller one
 * (docs/content.md, "GraphQL schema choices"): UserStatus/PostStatus include DELETED, Role
 * includes GUEST, UserOrderField includes UPDATED_AT, Node carries createdAt, `users` takes
 * last/before, ErrorCode exists as an enum while FieldError.code stays a nullable String.
 *
 * Directive placement is ours (the interface defines the directives, not where they apply).
 */
export const typeDefs = /* GraphQL */ `
  """
  ISO-8601 date-time string.
  """
  scalar DateTime
  """
  Any JSON value.
  """
  scalar JSON
  """
  Reserved by the schema; no field accepts uploads yet.
  """
  scalar Upload

  """
  Requires an authenticated caller with at least this role (ADMIN > MODERATOR > USER > GUEST).
  """
  directive @auth(requires: Role = USER) on FIELD_DEFINITION
  """
  Validates an argument or input field; constraint language in docs/content.md.
  """
  directive @validate(constraint: String!) on ARGUMENT_DEFINITION | INPUT_FIELD_DEFINITION
  """
  Caches the field's result in Redis for ttl seconds; mutations of the same type invalidate it.
  """
  directive @cache(ttl: Int!) on FIELD_DEFINITION
  """
  At most limit calls per caller per duration seconds.
  """
  directive @rateLimit(limit: Int!, duration: Int!) on FIELD_DEFINITION

  ${enumType('UserStatus', USER_STATUSES, RETIRED_USER_STATUSES, 'Earlier schema variant; deleted users are removed.')}
  ${enumType('Role', USER_ROLES, RETIRED_ROLES, 'Earlier schema variant; anonymous callers have no role.')}
  ${enumType('PostStatus', POST_STATUSES, RETIRED_POST_STATUSES, 'Earlier schema variant; deleted posts are removed.')}
  enum SortOrder {
    ASC
    DESC
  }
  enum UserOrderField {
    NAME
    EMAIL
    CREATED_AT
    UPDATED_AT
  }
  enum PostOrderField {
    TITLE
    CREATED_AT
    PUBLISHED_AT
    VIEW_COUNT
  }
  enum SearchType {
    USER
    POST
    COMMENT
    ALL
  }
  enum ErrorCode {
    VALIDATION_ERROR
    NOT_FOUND
    UNAUTHORIZED
    FORBIDDEN
    CONFLICT
    INTERNAL_ERROR
  }

  interface Node {
    id: ID!
    createdAt: DateTime!
  }

  union SearchResult = User | Post | Comment

  type User implements Node {
    id: ID!
    name: String!
    """
    Visible to the user themself and to ADMIN; null for everyone else.
    """
    email: String
    avatar: String
    status: UserStatus!
    role: Role!
    posts(first: Int @validate(constraint: "range:0..100"), after: String, status: PostStatus): PostConnection!
    comments(first: Int @validate(constraint: "range:0..100"), after: String): CommentConnection!
    createdAt: DateTime!
    updatedAt: DateTime
  }

  type Post implements Node {
    id: ID!
    title: String!
    content: String!
    excerpt: String
    status: PostStatus!
    author: User!
    comments(first: Int @validate(constraint: "range:0..100"), after: String): CommentConnection!
    tags: [String!]!
    viewCount: Int!
    createdAt: DateTime!
    publishedAt: DateTime
    updatedAt: DateTime
  }

  type Comment implements Node {
    id: ID!
    content: String!
    author: User!
    post: Post!
    parent: Comment
    replies(first: Int @validate(constraint: "range:0..100"), after: String): CommentConnection!
    createdAt: DateTime!
    updatedAt: DateTime
  }

  type PageInfo {
    hasNextPage: Boolean!
    hasPreviousPage: Boolean!
    startCursor: String
    endCursor: String
  }

  type UserEdge {
    node: User!
    cursor: String!
  }
  type PostEdge {
    node: Post!
    cursor: String!
  }
  type CommentEdge {
    node: Comment!
    cursor: String!
  }
  type UserConnection {
    edges: [UserEdge!]!
    pageInfo: PageInfo!
    totalCount: Int!
  }
  type PostConnection {
    edges: [PostEdge!]!
    pageInfo: PageInfo!
    totalCount: Int!
  }
  type CommentConnection {
    edges: [CommentEdge!]!
    pageInfo: PageInfo!
    totalCount: Int!
  }

  type FieldError {
    field: String!
    message: String!
    code: String
  }

  type UserMutationPayload {
    user: User
    success: Boolean!
    message: String
    errors: [FieldError!]
  }

  type PostMutationPayload {
    post: Post
    success: Boolean!
    message: String
    errors: [FieldError!]
  }

  type DeleteResult {
    success: Boolean!
    message: String
    deletedId: ID
  }

  input CreateUserInput {
    name: String! @validate(constraint: "length:1..100")
    email: String! @validate(constraint: "email")
    password: String! @validate(constraint: "length:8..128")
    role: Role = USER
  }

  input UpdateUserInput {
    name: String @validate(constraint: "length:1..100")
    email: String @validate(constraint: "email")
    avatar: String @validate(constraint: "url")
    status: UserStatus
  }

  input UserFilter {
    status: UserStatus
    role: Role
    search: String @validate(constraint: "length:0..100")
  }

  input UserOrderBy {
    field: UserOrderField!
    direction: SortOrder!
  }

  input CreatePostInput {
    title: String! @validate(constraint: "length:1..255")
    content: String! @validate(constraint: "length:1..100000")
    excerpt: String @validate(constraint: "length:0..500")
    status: PostStatus = DRAFT
    tags: [String!] @validate(constraint: "pattern:^[a-z0-9][a-z0-9-]{0,49}$")
  }

  input UpdatePostInput {
    title: String @validate(constraint: "length:1..255")
    content: String @validate(constraint: "length:1..100000")
    excerpt: String @validate(constraint: "length:0..500")
    status: PostStatus
    tags: [String!] @validate(constraint: "pattern:^[a-z0-9][a-z0-9-]{0,49}$")
  }

  input PostFilter {
    status: PostStatus
    authorId: ID
    search: String @validate(constraint: "length:0..100")
  }

  input PostOrderBy {
    field: PostOrderField!
    direction: SortOrder!
  }

  input CreateCommentInput {
    content: String! @validate(constraint: "length:1..10000")
    postId: ID!
    parentId: ID
  }

  input UpdateCommentInput {
    content: String! @validate(constraint: "length:1..10000")
  }

  type Query {
    me: User @auth(requires: USER)
    user(id: ID!): User @cache(ttl: 30)
    users(
      filter: UserFilter
      orderBy: UserOrderBy
      first: Int @validate(constraint: "range:0..100")
      after: String
      last: Int @validate(constraint: "range:0..100")
      before: String
    ): UserConnection! @cache(ttl: 30)
    post(id: ID!): Post @cache(ttl: 30)
    posts(
      filter: PostFilter
      orderBy: PostOrderBy
      first: Int @validate(constraint: "range:0..100")
      after: String
    ): PostConnection! @cache(ttl: 30)
    comment(id: ID!): Comment
    search(
      query: String! @validate(constraint: "length:1..100")
      type: SearchType
      limit: Int = 10 @validate(constraint: "range:1..50")
    ): [SearchResult!]! @rateLimit(limit: 30, duration: 60)
    node(id: ID!): Node
  }

  type Mutation {
    createUser(input: CreateUserInput!): UserMutationPayload! @auth(requires: ADMIN)
    updateUser(id: ID!, input: UpdateUserInput!): UserMutationPayload! @auth(requires: USER)
    deleteUser(id: ID!): DeleteResult! @auth(requires: ADMIN)
    createPost(input: CreatePostInput!): PostMutationPayload! @auth(requires: USER)
    updatePost(id: ID!, input: UpdatePostInput!): PostMutationPayload! @auth(requires: USER)
    deletePost(id: ID!): DeleteResult! @auth(requires: USER)
    createComment(input: CreateCommentInput!): Comment! @auth(requires: USER) @rateLimit(limit: 20, duration: 60)
    updateComment(id: ID!, input: UpdateCommentInput!): Comment! @auth(requires: USER)
    deleteComment(id: ID!): DeleteResult! @auth(requires: USER)
  }

  type Subscription {
    onUserCreated: User! @auth(requires: USER)
    onUserUpdated(id: ID!): User! @auth(requires: USER)
    onPostCreated: Post!
    onPostUpdated(id: ID!): Post!
    onCommentAdded(postId: ID!): Comment!
  }
`;
