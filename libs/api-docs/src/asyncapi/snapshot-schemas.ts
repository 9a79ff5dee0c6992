import {
  buildSchema,
  getNullableType,
  isEnumType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  type GraphQLOutputType,
} from 'graphql';
import { SNAPSHOT_RELATIONS } from '@platform/events';
import { typeDefs } from '@platform/graphql-schema';
import type { JsonValue } from '../document';

/**
 * JSON Schemas of the event snapshots (libs/events snapshots.ts), built as the snapshot types are: each GraphQL
 * type of the SDL less its relations (`SNAPSHOT_RELATIONS`), plus the fields only events carry, written here
 * because the SDL does not have them. A field added to the SDL is documented here without an edit.
 */
type Schema = { [key: string]: JsonValue };

const SCALARS: Record<string, Schema> = {
  ID: { type: 'string', description: 'GraphQL global id.' },
  String: { type: 'string' },
  Int: { type: 'integer' },
  Float: { type: 'number' },
  Boolean: { type: 'boolean' },
  DateTime: { type: 'string', format: 'date-time' },
  JSON: {},
};

/** A GraphQL output type's JSON Schema; a nullable one also admits null (the snapshots send null, not nothing). */
function jsonSchemaOf(type: GraphQLOutputType): Schema {
  const inner = getNullableType(type);
  let schema: Schema;
  if (isListType(inner)) schema = { type: 'array', items: jsonSchemaOf(inner.ofType) };
  else if (isEnumType(inner)) schema = { enum: inner.getValues().map((v) => v.name) };
  else if (isScalarType(inner) && SCALARS[inner.name]) schema = { ...SCALARS[inner.name] };
  else throw new Error(`snapshot field of type ${inner.toString()}: a relation, to list in SNAPSHOT_RELATIONS`);
  if (isNonNullType(type)) return schema;
  if (Array.isArray(schema.enum)) return { ...schema, enum: [...schema.enum, null] };
  return { ...schema, type: [schema.type as string, 'null'] };
}

/** The fields of `typeName` the snapshot takes from the SDL, each required (a nullable one is sent as null). */
function graphqlFields(
  sdl: string,
  typeName: keyof typeof SNAPSHOT_RELATIONS,
  leftOut: readonly string[] = [],
): Record<string, Schema> {
  const type = buildSchema(sdl).getType(typeName);
  if (!isObjectType(type)) throw new Error(`${typeName} is not an object type of the SDL`);
  const skip: ReadonlySet<string> = new Set([...SNAPSHOT_RELATIONS[typeName], ...leftOut]);
  return Object.fromEntries(
    Object.values(type.getFields())
      .filter((field) => !skip.has(field.name))
      .map((field) => [field.name, jsonSchemaOf(field.type)]),
  );
}

type ObjectSchema = { type: 'object'; required: string[]; properties: Record<string, Schema> };

function object(properties: Record<string, Schema>, optional: readonly string[] = []): ObjectSchema {
  return { type: 'object', required: Object.keys(properties).filter((k) => !optional.includes(k)), properties };
}

const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });

/** The snapshot schemas of the SDL `sdl` (the content API's by default; a test passes its own). */
export function snapshotSchemasOf(sdl: string = typeDefs) {
  const author = {
    ...graphqlFields(sdl, 'User', ['email']),
    localId: { type: 'string', description: 'The account id.' },
  };
  const post: Record<string, Schema> = {
    ...graphqlFields(sdl, 'Post'),
    localId: { type: 'integer' },
    slug: { type: 'string' },
    published: { type: 'boolean' },
    category: { type: ['string', 'null'] },
    author: ref('AuthorSnapshot'),
  };
  const postRefFields = ['id', 'localId', 'title', 'slug', 'status', 'published', 'createdAt'] as const;
  const postRef = {
    ...Object.fromEntries(postRefFields.map((name) => [name, post[name]!])),
    authorId: { type: 'string', description: "The post's author's account id (absent in older events)." },
  };
  return {
    UserSnapshot: object({ ...author, email: { type: 'string' } }),
    AuthorSnapshot: object(author),
    PostSnapshot: object({ ...post, viewCount: { ...post.viewCount, minimum: 0 } }),
    PostRefSnapshot: object(postRef, ['authorId']),
    CommentSnapshot: object({
      ...graphqlFields(sdl, 'Comment'),
      localId: { type: 'integer' },
      parentId: {
        type: ['string', 'null'],
        description: 'Global id of the parent comment; null for a top-level comment.',
      },
      author: ref('AuthorSnapshot'),
      post: ref('PostRefSnapshot'),
    }),
  } satisfies Record<string, Schema>;
}

export const snapshotSchemas = snapshotSchemasOf();
