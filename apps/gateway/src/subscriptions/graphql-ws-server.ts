import { GraphQLError, parse, validate, type DocumentNode, type ExecutionArgs, type GraphQLSchema } from 'graphql';
import type { IncomingMessage } from 'node:http';
import type { WebSocket, WebSocketServer } from 'ws';
import { GraphQLErrorCode } from '@platform/errors';
import { measureQuery, queryLimitError } from '@platform/graphql-schema';
import type { Identity } from '@platform/identity';
import type { Logger } from '@platform/logger';
import { authenticate, type AuthenticateDeps } from '../auth/authenticate';
import { readCredential, type CredentialHeaders } from '../auth/credentials';
import type { RevocationWatch } from '../auth/token-revocations';
import { addressSpentMessage, isCredentialFailure } from '../limits/failed-credentials';
import type { RateDecision } from '../limits/rate-limiter';
import type { MessageRate } from '../limits/message-rate';
import type { WebSocketLogins } from '../limits/websocket-logins';
import { checkAuthDirectives } from './auth-directive';
import { CLOSE_SLOW_CONSUMER, CLOSE_TOO_MANY_REQUESTS, CLOSE_TRY_AGAIN_LATER, CLOSE_UNAUTHORIZED } from './close-codes';
import type { SubscriptionHub } from './hub';
import { bookSubscription, EventFetchAllowance, type SubscriptionLimits } from './subscription-budget';
import type { MessageOutlet } from './subscription-stream';
import type { ConnectionStanding, SubscriberLimits } from './subscriber-limits';
import { viewerOf, type Viewer } from './viewer';
import { serveGraphqlWs, type WriteObserver } from './ws-transport';

interface SubscriptionServerOptions {
  schema: GraphQLSchema;
  hub: SubscriptionHub;
  authDeps: AuthenticateDeps;
  /** Closes a connection when the token that opened it is revoked. */
  revocations: RevocationWatch;
  /** Logins refused for their credentials pay from the client IP's budget (limits/websocket-logins.ts). */
  logins: WebSocketLogins;
  publicUrl: string;
  maxSubscriptionsPerConnection: number;
  /** Told each socket write's message count (metrics). */
  onWrite?: WriteObserver;
  /** Cost budgets and the nested-fetch bound (subscription-budget.ts). */
  limits: SubscriptionLimits;
  /** Connections, subscriptions and nested fetches per client address and account (subscriber-limits.ts). */
  subscribers: SubscriberLimits;
  /** Each socket's inbound message budget (closed 4429 beyond it). */
  messageRate: MessageRate;
  logger: Logger;
}

interface ConnectionState {
  identity: Identity;
  /** Booked cost of each active subscription, by id. */
  costs: Map<string, number>;
  /** The connection's own allowance, then its address's or account's. */
  fetches: readonly EventFetchAllowance[];
  standing: ConnectionStanding;
  /** Subscriptions counted in the standing, until they complete. */
  counted: Set<string>;
}

/** What onSubscribe hands graphql-ws's `subscribe` for the hub. */
interface SubscriptionContext {
  viewer: Viewer;
  socket: WebSocket;
  outlet: MessageOutlet;
  id: string;
  fetches: readonly EventFetchAllowance[];
}

const MAX_QUERY_LENGTH = 20_000;

function param(params: Readonly<Record<string, unknown>> | undefined, ...names: string[]): string | undefined {
  if (!params) return undefined;
  for (const [key, value] of Object.entries(params)) {
    if (names.includes(key.toLowerCase()) && typeof value === 'string') return value;
  }
  return undefined;
}

/** connection_init payload → the same credential headers an HTTP request would carry. */
function credentialFromConnectionParams(params: Readonly<Record<string, unknown>> | undefined): CredentialHeaders {
  return {
    authorization: param(params, 'authorization'),
    'xi-api-key': param(params, 'xi-api-key', 'xi_api_key'),
    dpop: param(params, 'dpop'),
  };
}

/**
 * graphql-ws on the gateway's own `/graphql` WebSocket. The caller authenticates in
 * `connection_init` (same credentials as HTTP, in the payload); `@auth` is checked per
 * subscription; execution and fan-out are the hub's.
 */
export function serveSubscriptions(
  wss: WebSocketServer,
  options: SubscriptionServerOptions,
): { dispose: () => void | Promise<void> } {
  const base = options.publicUrl.replace(/\/$/, '');
  const states = new WeakMap<object, ConnectionState>();
  // Before graphql-ws sees the socket: it counts against its address from the start.
  wss.on('connection', (socket: WebSocket, request: IncomingMessage) => options.subscribers.opened(socket, request));

  return serveGraphqlWs<Record<string, unknown> | undefined>(
    {
      schema: options.schema,
      connectionInitWaitTimeout: 5_000,
      onConnect: async (ctx) => {
        const credential = readCredential(credentialFromConnectionParams(ctx.connectionParams));
        const tooMany = (decision: RateDecision) => {
          ctx.extra.socket.close(CLOSE_TOO_MANY_REQUESTS, addressSpentMessage(decision).slice(0, 120));
          return false;
        };
        const spent = await options.logins.refuseUnchecked(ctx.extra.request, credential);
        if (spent) return tooMany(spent);
        const outcome = await authenticate(
          credential,
          {
            audiences: [base, `${base}/api`],
            scope: credential.kind === 'none' ? '' : 'content:read',
            credentialsRequired: false,
            method: 'GET',
            url: `${base}/graphql`,
          },
          options.authDeps,
        ).catch(() => null);
        if (!outcome || (!outcome.ok && outcome.error.status >= 500)) {
          ctx.extra.socket.close(CLOSE_TRY_AGAIN_LATER, 'authentication unavailable');
          return false;
        }
        if (!outcome.ok) {
          if (isCredentialFailure(outcome.error.status)) {
            const over = await options.logins.chargeRefusal(ctx.extra.request);
            if (over) return tooMany(over);
          }
          const forbidden = outcome.error.status === 403;
          ctx.extra.socket.close(forbidden ? 4403 : CLOSE_UNAUTHORIZED, outcome.error.message.slice(0, 120));
          return false;
        }
        const socket = ctx.extra.socket;
        const standing = await options.subscribers.admit(socket, ctx.extra.request, outcome.identity);
        if (standing && 'refused' in standing) {
          socket.close(CLOSE_TOO_MANY_REQUESTS, standing.refused);
          return false;
        }
        // Closed while we were authenticating: its 'close' event has passed, nothing would undo a watch.
        if (!standing || socket.readyState !== socket.OPEN) return false;
        const state: ConnectionState = {
          identity: outcome.identity,
          costs: new Map(),
          fetches: [new EventFetchAllowance(options.limits.maxFetchesPerEvent), standing.fetches],
          standing,
          counted: new Set(),
        };
        // A connection lives no longer than the token that opened it: closed at its exp, or at once
        // when it is revoked (notice on auth:revocations, or the periodic sweep; docs/gateway.md).
        const ends: (() => void)[] = [];
        if (outcome.expiresAt) {
          const ms = Math.max(0, outcome.expiresAt * 1000 - Date.now());
          const expiry = setTimeout(() => socket.close(CLOSE_UNAUTHORIZED, 'token expired'), Math.min(ms, 2 ** 31 - 1));
          expiry.unref();
          ends.push(() => clearTimeout(expiry));
        }
        if (outcome.tokenId) {
          ends.push(
            options.revocations.watch(outcome.tokenId, () => socket.close(CLOSE_UNAUTHORIZED, 'token revoked')),
          );
        }
        socket.once('close', () => {
          for (const end of ends) end();
        });
        states.set(ctx, state);
        return true;
      },
      onSubscribe: async (ctx, id, payload) => {
        const state = states.get(ctx);
        if (!state)
          return [
            new GraphQLError('connection not initialised', { extensions: { code: GraphQLErrorCode.UNAUTHENTICATED } }),
          ];
        if (Object.keys(ctx.subscriptions).length > options.maxSubscriptionsPerConnection) {
          return [
            new GraphQLError(`at most ${options.maxSubscriptionsPerConnection} subscriptions per connection`, {
              extensions: { code: GraphQLErrorCode.RATE_LIMITED },
            }),
          ];
        }
        if (typeof payload.query !== 'string' || payload.query.length > MAX_QUERY_LENGTH) {
          return [
            new GraphQLError('query missing or too long', { extensions: { code: GraphQLErrorCode.BAD_USER_INPUT } }),
          ];
        }
        let document: DocumentNode;
        try {
          document = parse(payload.query, { maxTokens: 5_000 });
        } catch (err) {
          return [err instanceof GraphQLError ? err : new GraphQLError('query could not be parsed')];
        }
        // Shape and own budget before validation, whose overlapping-fields check is quadratic in repeats.
        const measure = measureQuery(options.schema, document, payload.variables ?? {});
        const tooCostly = queryLimitError(measure, options.limits.maxCost);
        if (tooCostly) return [tooCostly];
        const invalid = validate(options.schema, document);
        if (invalid.length > 0) return invalid;
        const viewer = viewerOf(state.identity);
        const denied = checkAuthDirectives(options.schema, document, viewer);
        if (denied.length > 0) return denied;
        // Booked before it starts: every event pays the selection's cost again.
        const overBudget = bookSubscription(
          state.costs,
          (other) => other in ctx.subscriptions,
          id,
          measure,
          options.limits,
        );
        if (overBudget) return [overBudget];
        // Last, as it asks Redis: the subscriptions of all the address's or account's connections.
        const overCap = await state.standing.addSubscription();
        if (overCap) {
          state.costs.delete(id);
          return [overCap];
        }
        state.counted.add(id);
        const args: ExecutionArgs = {
          schema: options.schema,
          document,
          operationName: payload.operationName ?? null,
          variableValues: payload.variables ?? null,
          contextValue: { viewer, socket: ctx.extra.socket, outlet: ctx.extra.sender, id, fetches: state.fetches },
        };
        return args;
      },
      // Every subscription that passed onSubscribe ends here, whichever side ended it (or the socket closed).
      onComplete: (ctx, id) => {
        const state = states.get(ctx);
        if (state?.counted.delete(id)) state.standing.removeSubscription();
      },
      subscribe: (args) => {
        const { viewer, socket, outlet, id, fetches } = args.contextValue as SubscriptionContext;
        return options.hub.subscribe({
          id,
          outlet,
          document: args.document,
          operationName: args.operationName ?? null,
          variables: (args.variableValues as Record<string, unknown> | null | undefined) ?? null,
          viewer,
          fetches,
          onOverflow: () => {
            options.logger.warn('closing a slow subscriber: buffer overflow');
            socket.close(CLOSE_SLOW_CONSUMER, 'subscriber too slow: buffer overflow');
          },
        });
      },
      execute: () => ({
        errors: [
          new GraphQLError(
            'only subscriptions are served over WebSocket; send queries and mutations to POST /graphql',
            {
              extensions: { code: GraphQLErrorCode.BAD_USER_INPUT },
            },
          ),
        ],
      }),
    },
    wss,
    {
      keepAliveMs: 12_000,
      messageRate: options.messageRate,
      ...(options.onWrite ? { onWrite: options.onWrite } : {}),
      logger: options.logger,
    },
  );
}
