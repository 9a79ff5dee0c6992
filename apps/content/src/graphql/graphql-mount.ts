import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import { unwrapResolverError } from '@apollo/server/errors';
import {
  ApolloServerPluginCacheControlDisabled,
  ApolloServerPluginLandingPageDisabled,
} from '@apollo/server/plugin/disabled';
import { expressMiddleware } from '@as-integrations/express5';
import { makeExecutableSchema } from '@graphql-tools/schema';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import { GraphQLError, GraphQLScalarType, Kind } from 'graphql';
import type { Redis } from 'ioredis';
import { GraphQLErrorCode } from '@platform/errors';
import { graphqlBodyMediaTypeProblem, SUBSCRIPTION_FIELDS, typeDefs } from '@platform/graphql-schema';
import type { Logger } from '@platform/logger';
import { JSON_TOO_DEEP, refuseDeepJson } from '@platform/service';
import { isStoreUnavailable } from '@platform/stores';
import { requestUserVersion } from '../cache/user-memo';
import type { VersionedCache } from '../cache/versioned-cache';
import type { ContentDeps } from '../domain/deps';
import { callerOf } from '../identity/identity-middleware';
import type { GraphQLContext } from './context';
import type { CursorCodec } from './cursors';
import { applyDirectives } from './directives/apply-directives';
import { checkLimits } from './limits';
import { limitsChecked, limitsGate } from './limits-gate';
import { createLoaders } from './loaders';
import { mutationResolvers } from './resolvers/mutation-resolvers';
import { queryResolvers } from './resolvers/query-resolvers';
import { graphqlOverHttpStatus } from './response-status';
import type { Resolvers } from './resolvers/resolver-types.generated';
import { typeResolvers } from './resolvers/type-resolvers';

interface GraphQLMountOptions {
  deps: ContentDeps;
  redis: Redis;
  cache: VersionedCache;
  redisPrefix: string;
  logger: Logger;
  /** Page cursors, sealed with a key every replica shares (cursors.ts). */
  cursors: CursorCodec;
  /** Cost budget of one request (`GRAPHQL_MAX_COST`; limits.ts). */
  maxCost?: number;
  /** Whether `__schema` / `__type` are answered (`GRAPHQL_INTROSPECTION`); default true. */
  introspection?: boolean;
}

const GRAPHQL_BODY_LIMIT = '100kb';

/**
 * A POST body that is not UTF-8 JSON is refused (415) before the body parser, which would decode a
 * `charset=utf-16le` body: the gateway judged the operation (a mutation needs `content:write`) by
 * the same rule, so the text run here is the text it judged.
 */
function utf8JsonBodies(req: Request, res: Response, next: NextFunction): void {
  const problem = req.method === 'POST' ? graphqlBodyMediaTypeProblem(req.headers['content-type']) : null;
  if (!problem) return next();
  res.status(415).json({ errors: [{ message: problem, extensions: { code: 'BAD_REQUEST' } }] });
}

const DateTime = new GraphQLScalarType({
  name: 'DateTime',
  description: 'ISO-8601 date-time',
  serialize(value) {
    const date = value instanceof Date ? value : new Date(value as string);
    if (Number.isNaN(date.getTime())) throw new GraphQLError('DateTime cannot represent an invalid date');
    return date.toISOString();
  },
  parseValue(value) {
    const date = typeof value === 'string' ? new Date(value) : null;
    if (!date || Number.isNaN(date.getTime())) throw new GraphQLError('DateTime must be an ISO-8601 string');
    return date;
  },
  parseLiteral(ast) {
    const date = ast.kind === Kind.STRING ? new Date(ast.value) : null;
    if (!date || Number.isNaN(date.getTime())) throw new GraphQLError('DateTime must be an ISO-8601 string');
    return date;
  },
});

const JSONScalar = new GraphQLScalarType({ name: 'JSON', serialize: (v) => v, parseValue: (v) => v });
const Upload = new GraphQLScalarType({
  name: 'Upload',
  serialize: () => null,
  parseValue: () => {
    throw new GraphQLError('Uploads are not supported');
  },
});

/**
 * Subscriptions are served by the gateway from Kafka; here they answer with a clear error. A subscription
 * operation POSTed over HTTP is executed like a query (each root field resolved once), hence `resolve` too.
 */
const notServedHere = () => {
  throw new GraphQLError('Subscriptions are served by the gateway over WebSocket', {
    extensions: { code: GraphQLErrorCode.BAD_USER_INPUT },
  });
};
const subscriptionResolvers = Object.fromEntries(
  SUBSCRIPTION_FIELDS.map(({ field }) => [field, { subscribe: notServedHere, resolve: notServedHere }]),
);

const KNOWN_CODES: ReadonlySet<string> = new Set([
  ...Object.values(GraphQLErrorCode),
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'BAD_REQUEST',
  'PERSISTED_QUERY_NOT_FOUND',
  'PERSISTED_QUERY_NOT_SUPPORTED',
  'OPERATION_RESOLUTION_FAILURE',
]);

/** Whether Apollo answered `error` with a 4xx status (set on the error as `extensions.http.status`). */
function isClientStatus(error: unknown): boolean {
  const http = error instanceof GraphQLError ? (error.extensions.http as { status?: unknown } | undefined) : undefined;
  return typeof http?.status === 'number' && http.status >= 400 && http.status < 500;
}

export function buildSchema(options: Pick<GraphQLMountOptions, 'redis' | 'cache' | 'redisPrefix'>) {
  const resolvers: Resolvers = {
    DateTime,
    JSON: JSONScalar,
    Upload,
    ...typeResolvers,
    Query: queryResolvers,
    Mutation: mutationResolvers,
    Subscription: subscriptionResolvers,
  };
  const schema = makeExecutableSchema<GraphQLContext>({ typeDefs, resolvers });
  return applyDirectives(schema, options);
}
export async function graphqlMount(
  options: GraphQLMountOptions,
): Promise<{ mount: (app: Express) => void; stop: () => Promise<void> }> {
  const limits: ApolloServerPlugin<GraphQLContext> = {
    async requestDidStart() {
      return {
        async didResolveOperation({ document, request, contextValue }) {
          // The gate in front of Apollo measured this very text with these variables already.
          if (contextValue.limitsChecked) return;
          const error = checkLimits(document, (request.variables ?? {}) as Record<string, unknown>, {
            maxCost: options.maxCost,
          });
          if (error) throw error;
        },
        async willSendResponse({ contextValue, response }) {
          if (response.body.kind === 'single' && contextValue.cacheHits) {
            response.body.singleResult.extensions = {
              ...response.body.singleResult.extensions,
              cacheHits: contextValue.cacheHits,
            };
          }
        },
      };
    },
  };
  const server = new ApolloServer<GraphQLContext>({
    schema: buildSchema(options),
    // No schema sets cache-control hints (caching is @cache's, in Redis), so Apollo's default cache-control
    // plugin would only compute a policy nobody reads, wrapping every field resolution to do it.
    plugins: [
      ApolloServerPluginLandingPageDisabled(),
      ApolloServerPluginCacheControlDisabled(),
      limits,
      graphqlOverHttpStatus,
    ],
    includeStacktraceInErrorResponses: false,
    // Always given: Apollo's own default would follow NODE_ENV.
    introspection: options.introspection ?? true,
    // runService owns shutdown (drain, then close); Apollo's own handler would re-raise SIGTERM and skip the drain.
    stopOnTerminationSignals: false,
    // Unexpected errors are logged and masked; every expected one already carries its code.
    formatError(formatted, error) {
      if (isStoreUnavailable(unwrapResolverError(error))) {
        // An outage of MongoDB (no primary): retryable, so not masked as an internal error.
        return {
          message: 'the content store is temporarily unavailable',
          extensions: { code: GraphQLErrorCode.UPSTREAM_UNAVAILABLE },
          ...(formatted.path ? { path: formatted.path } : {}),
        };
      }
      const code = String(formatted.extensions?.code ?? '');
      if (KNOWN_CODES.has(code)) {
        const { http: _http, stacktrace: _s, ...extensions } = formatted.extensions ?? {};
        // Apollo rejects some requests (a persisted query whose hash does not match its text) with a 4xx but no
        // code, which it then reports as INTERNAL_SERVER_ERROR: the client's mistake is a BAD_REQUEST.
        if (code === GraphQLErrorCode.INTERNAL_SERVER_ERROR && isClientStatus(error))
          return { ...formatted, extensions: { ...extensions, code: 'BAD_REQUEST' } };
        return { ...formatted, extensions };
      }
      options.logger.error({ err: error }, 'graphql resolver failed');
      return {
        message: 'Internal server error',
        extensions: { code: GraphQLErrorCode.INTERNAL_SERVER_ERROR },
        ...(formatted.path ? { path: formatted.path } : {}),
      };
    },
  });
  await server.start();
  return {
    mount(app: Express) {
      app.use(
        '/graphql',
        utf8JsonBodies,
        express.json({ limit: GRAPHQL_BODY_LIMIT, verify: refuseDeepJson }),
        limitsGate(options.maxCost),
        expressMiddleware(server, {
          context: async ({ res }) => {
            const userVersion = options.deps.users ? requestUserVersion(options.deps.users.version) : undefined;
            return {
              caller: callerOf(res),
              deps: options.deps,
              loaders: createLoaders(options.deps, userVersion),
              cursors: options.cursors,
              limitsChecked: limitsChecked(res),
              ...(userVersion ? { userVersion } : {}),
            };
          },
        }),
        // Body parser failures on /graphql, in the GraphQL shape.
        (err: unknown, _req: Request, res: Response, next: NextFunction) => {
          const type = typeof err === 'object' && err !== null ? (err as { type?: unknown }).type : undefined;
          if (type === 'entity.too.large')
            return void res
              .status(413)
              .json({ errors: [{ message: 'Request body too large', extensions: { code: 'BAD_REQUEST' } }] });
          if (type === 'entity.parse.failed')
            return void res
              .status(400)
              .json({ errors: [{ message: 'Malformed JSON body', extensions: { code: 'BAD_REQUEST' } }] });
          if (type === JSON_TOO_DEEP)
            return void res
              .status(400)
              .json({ errors: [{ message: (err as Error).message, extensions: { code: 'BAD_REQUEST' } }] });
          next(err);
        },
      );
    },
    stop: () => server.stop(),
  };
}
