import { createHash } from 'node:crypto';
import { getDirective, MapperKind, mapSchema } from '@graphql-tools/utils';
import {
  defaultFieldResolver,
  getNamedType,
  isInputObjectType,
  type GraphQLFieldConfig,
  type GraphQLInputType,
  type GraphQLSchema,
} from 'graphql';
import type { Redis } from 'ioredis';
import { GraphQLErrorCode, type FieldError } from '@platform/errors';
import type { Role } from '@platform/identity';
import type { CachedType, VersionedCache } from '../../cache/versioned-cache';
import { hasRole, hasScope, isModerator, type Caller } from '../../identity/caller';
import type { GraphQLContext } from '../context';
import { badInput, gqlError } from '../graphql-errors';
import { selectedNodeFields, selectsCursors, selectsField } from '../selection';
import { compileConstraint, type Check } from './constraints';

/**
 * Makes the SDL's directives do what they say, by wrapping field resolvers once at startup.
 * Order per call: @auth → @rateLimit → @validate → @cache → resolver.
 * Fields whose type is a mutation payload (…MutationPayload, DeleteResult) report @auth and
 * @validate failures inside the payload instead of throwing (the content API's mutation payloads:
 * `{success: false, message, errors}`, docs/content.md).
 */
interface DirectiveDeps {
  redis: Redis;
  redisPrefix: string;
  cache: VersionedCache;
}

type Resolver = NonNullable<GraphQLFieldConfig<unknown, GraphQLContext>['resolve']>;
type ArgChecks = { path: string; check: Check; at: string[] }[];

function isPayloadType(typeName: string): boolean {
  return typeName.endsWith('MutationPayload') || typeName === 'DeleteResult';
}

function failure(message: string, errors: FieldError[]) {
  return { success: false, message, errors };
}

/** Paths of every @validate under the field's arguments (arguments and input object fields, nested). */
function collectChecks(schema: GraphQLSchema, field: GraphQLFieldConfig<unknown, GraphQLContext>): ArgChecks {
  const checks: ArgChecks = [];
  const visitInput = (type: GraphQLInputType, at: string[], seen: Set<string>) => {
    const named = getNamedType(type);
    if (!isInputObjectType(named) || seen.has(named.name)) return;
    const nextSeen = new Set(seen).add(named.name);
    for (const [name, inputField] of Object.entries(named.getFields())) {
      const directive = getDirective(schema, inputField, 'validate')?.[0];
      if (directive)
        checks.push({
          path: [...at, name].join('.'),
          check: compileConstraint(String(directive.constraint)),
          at: [...at, name],
        });
      visitInput(inputField.type, [...at, name], nextSeen);
    }
  };
  for (const [name, arg] of Object.entries(field.args ?? {})) {
    const directive = getDirective(schema, arg, 'validate')?.[0];
    if (directive) checks.push({ path: name, check: compileConstraint(String(directive.constraint)), at: [name] });
    visitInput(arg.type, [name], new Set());
  }
  return checks;
}

function valueAt(args: Record<string, unknown>, at: string[]): unknown {
  let value: unknown = args;
  for (const key of at) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

function cachedTypeOf(typeName: string): CachedType | null {
  const base = typeName.replace(/Connection$/, '');
  return base === 'User' || base === 'Post' || base === 'Comment' ? base : null;
}

/** Whose view a cached result is: visibility of drafts and emails depends on the caller. */
function cacheScope(caller: Caller): string {
  if (!caller.id) return 'anon';
  if (isModerator(caller)) return `role:${caller.role}:${caller.id}`;
  return `u:${caller.id}`;
}

export function applyDirectives(schema: GraphQLSchema, deps: DirectiveDeps): GraphQLSchema {
  return mapSchema(schema, {
    [MapperKind.OBJECT_FIELD]: (fieldConfig, fieldName, typeName) => {
      const returnType = getNamedType(fieldConfig.type).name;
      const payload = isPayloadType(returnType);
      const coordinate = `${typeName}.${fieldName}`;
      let resolve: Resolver = fieldConfig.resolve ?? defaultFieldResolver;

      const cacheDirective = getDirective(schema, fieldConfig, 'cache')?.[0];
      const cachedType = cacheDirective ? cachedTypeOf(returnType) : null;
      if (cacheDirective && cachedType) {
        const ttl = Math.max(1, Number(cacheDirective.ttl));
        const inner = resolve;
        const connection = returnType.endsWith('Connection');
        resolve = async (source, args, ctx, info) => {
          // A connection counts its items only when `totalCount` is selected (paginate's lazyCount), and
          // JSON cannot hold a count not yet run: whether it is selected is part of the key, an entry made
          // for a selection with `totalCount` stores the number, and a hit without one is not served to it.
          const counted = connection && selectsField(info, 'totalCount');
          const parts: unknown[] = [coordinate, args, cacheScope(ctx.caller)];
          // A list reads (and stores) only the fields its selection needs (see post-projection), so an entry
          // serves only the same selection.
          // Likewise an entry made without cursors (not sealed when not selected) serves no selection of them.
          if (connection)
            parts.push({
              totalCount: counted,
              fields: [...(selectedNodeFields(info) ?? ['*'])].sort(),
              cursors: selectsCursors(info),
            });
          const key = createHash('sha256').update(JSON.stringify(parts)).digest('base64url');
          // The request's authors will need the `User` version: read in this round trip, not one of its own.
          const alsoUser = ctx.userVersion?.wanted ? 'User' : undefined;
          const lookup = await deps.cache.get(cachedType, key, alsoUser).catch(() => null);
          if (lookup?.otherVersion !== undefined) ctx.userVersion?.offer(lookup.otherVersion);
          const hit = lookup?.value ?? null;
          if (hit !== null) {
            const cached = JSON.parse(hit) as unknown;
            if (!counted || typeof (cached as { totalCount?: unknown } | null)?.totalCount === 'number') {
              ctx.cacheHits = (ctx.cacheHits ?? 0) + 1;
              return cached;
            }
          }
          let value: unknown = await inner(source, args, ctx, info);
          const lazyCount = counted ? (value as { totalCount?: unknown } | null)?.totalCount : undefined;
          if (typeof lazyCount === 'function')
            value = { ...(value as object), totalCount: await (lazyCount as () => Promise<number>)() };
          // Stored without waiting for Redis: the SET is written to Redis's socket now, before this response
          // can reach the client, so a request that follows it finds the entry; a failed store is only a miss.
          if (lookup)
            void deps.cache
              .set(cachedType, key, lookup.version, JSON.stringify(value ?? null), ttl)
              .catch(() => undefined);
          return value;
        };
      }

      const checks = collectChecks(schema, fieldConfig);
      if (checks.length > 0) {
        const inner = resolve;
        resolve = (source, args, ctx, info) => {
          const errors: FieldError[] = [];
          for (const { path, check, at } of checks) {
            const problem = check(valueAt(args as Record<string, unknown>, at));
            if (problem) errors.push({ field: path, message: `${path} ${problem}`, code: 'VALIDATION_ERROR' });
          }
          if (errors.length > 0) {
            if (payload) return failure('Validation failed', errors);
            throw badInput(errors.map((e) => e.message).join('; '), errors);
          }
          return inner(source, args, ctx, info);
        };
      }

      const rateLimit = getDirective(schema, fieldConfig, 'rateLimit')?.[0];
      if (rateLimit) {
        const limit = Number(rateLimit.limit);
        const duration = Math.max(1, Number(rateLimit.duration));
        const inner = resolve;
        resolve = async (source, args, ctx, info) => {
          // A window opens at the caller's first call and lasts `duration` seconds (SET NX EX),
          // so the budget is exact: never more than `limit` calls in the window, on any replica.
          const key = `${deps.redisPrefix}rl:${coordinate}:${ctx.caller.key}`;
          const replies = await deps.redis.multi().set(key, '0', 'EX', duration, 'NX').incr(key).pttl(key).exec();
          const count = Number(replies?.[1]?.[1] ?? 0);
          if (count > limit) {
            const retryAfter = Math.max(1, Math.ceil(Number(replies?.[2]?.[1] ?? duration * 1000) / 1000));
            throw gqlError(
              GraphQLErrorCode.RATE_LIMITED,
              `Rate limit of ${limit} per ${duration} s exceeded for ${fieldName}`,
              { retryAfter },
            );
          }
          return inner(source, args, ctx, info);
        };
      }

      const auth = getDirective(schema, fieldConfig, 'auth')?.[0];
      if (auth) {
        const requires = (auth.requires ?? 'USER') as Role | 'GUEST';
        const inner = resolve;
        resolve = (source, args, ctx, info) => {
          const need = typeName === 'Mutation' ? 'write' : 'read';
          const roleOk = hasRole(ctx.caller, requires);
          const scopeOk = hasScope(ctx.caller, need);
          if (roleOk && scopeOk) return inner(source, args, ctx, info);
          const anonymous = !ctx.caller.id;
          const message = anonymous
            ? 'Authentication required'
            : roleOk
              ? `Token lacks the content:${need} scope`
              : `Requires role ${requires}`;
          const code = anonymous ? 'UNAUTHORIZED' : 'FORBIDDEN';
          if (payload) return failure(message, [{ field: 'auth', message, code }]);
          throw gqlError(anonymous ? GraphQLErrorCode.UNAUTHENTICATED : GraphQLErrorCode.FORBIDDEN, message);
        };
      }

      return { ...fieldConfig, resolve };
    },
  });
}
