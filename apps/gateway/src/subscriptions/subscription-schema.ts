import {
  buildSchema,
  defaultFieldResolver,
  isObjectType,
  type GraphQLFieldResolver,
  type GraphQLResolveInfo,
  type GraphQLSchema,
} from 'graphql';
import { fromGlobalId, typeDefs } from '@platform/graphql-schema';
import { canSeeEmail, type Viewer } from './viewer';

/** Per-event execution context: who the result is for, and the event's shared fetch cache. */
export interface EventContext {
  viewer: Viewer;
  fetchNested(typeName: string, id: string, info: GraphQLResolveInfo): Promise<unknown>;
}

/** Objects that came from content (shaped by the selection, keys are response names). */
const fetched = new WeakSet<object>();

export function markFetched(value: unknown): void {
  if (typeof value !== 'object' || value === null || fetched.has(value)) return;
  fetched.add(value);
  for (const inner of Object.values(value)) markFetched(inner);
}

type Source = Record<string, unknown>;

/** Reads a fetched object by response key (aliases), anything else by field name. */
export const eventFieldResolver: GraphQLFieldResolver<unknown, EventContext> = (source, args, context, info) => {
  if (typeof source === 'object' && source !== null && fetched.has(source))
    return (source as Source)[String(info.path.key)];
  return defaultFieldResolver(source, args, context, info);
};

function localIdOf(user: Source): string | undefined {
  if (typeof user.localId === 'string') return user.localId;
  if (typeof user.id === 'string') return fromGlobalId(user.id)?.localId;
  return undefined;
}

/**
 * An entity field: from the event snapshot when it holds it, otherwise fetched from content
 * (once per event and selection, through the context's cache).
 */
function entityFieldResolver(typeName: string, fieldName: string): GraphQLFieldResolver<unknown, EventContext> {
  return async (source, _args, context, info) => {
    const object = source as Source;
    let value: unknown;
    if (fetched.has(object)) value = object[String(info.path.key)];
    else if (typeName === 'Comment' && fieldName === 'parent' && object.parentId === null) value = null;
    else if (Object.prototype.hasOwnProperty.call(object, fieldName)) value = object[fieldName];
    else if (typeof object.id === 'string') value = await context.fetchNested(typeName, object.id, info);
    if (typeName === 'User' && fieldName === 'email')
      return canSeeEmail(context.viewer, localIdOf(object)) ? (value ?? null) : null;
    return value;
  };
}

/** The shared SDL, with the resolvers the gateway needs to answer Subscription payloads. */
export function buildSubscriptionSchema(): GraphQLSchema {
  const schema = buildSchema(typeDefs);
  for (const typeName of ['User', 'Post', 'Comment']) {
    const type = schema.getType(typeName);
    if (!isObjectType(type)) continue;
    for (const field of Object.values(type.getFields())) field.resolve = entityFieldResolver(typeName, field.name);
  }
  return schema;
}
