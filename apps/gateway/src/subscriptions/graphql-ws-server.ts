import { GraphQLError, parse, validate, type DocumentNode, type ExecutionArgs, type GraphQLSchema } from 'graphql';
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
import type { WebSocketLogins } from '../limits/websocket-logins';
import { checkAuthDirectives } from './auth-directive';
import type { SubscriptionHub } from './hub';
import { bookSubscription, EventFetchAllowance, type SubscriptionLimits } from './subscription-budget';
import type { MessageOutlet } from './subscription-stream';
import { viewerOf, type Viewer } from './viewer';
import { serveGraphqlWs, type WriteObserver } from './ws-transport';

export interface SubscriptionServerOptions {
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
  logger: Logger;
}

/** Close codes besides graphql-ws's own (4400 bad request, 4403 forbidden, 4409, 4429, 4499). */
export const CLOSE_UNAUTHORIZED = 4401;
/**
 * The client IP's budget for logins refused for their credentials is spent (HTTP's 429). graphql-ws
 * uses 4429 for too many `connection_init`s on one socket; its clients treat the code as fatal, like
 * 4401, and do not retry on their own: a retry in the same second would only be refused again.
 */
export const CLOSE_TOO_MANY_REQUESTS = 4429;
/**
 * The credential could not be checked (auth's keys or API-key lookup unavailable, Redis down):
 * "try again later" (RFC 6455 registry), which graphql-ws clients retry, unlike 4401.
 */
export const CLOSE_TRY_AGAIN_LATER = 1013;
/** Policy violation: the subscriber did not read fast enough and its buffer overflowed. */
export const CLOSE_SLOW_CONSUMER = 1008;

interface ConnectionState {
  identity: Identity;
  /** Booked cost of each active subscription, by id. */
  costs: Map<string, number>;
  fetches: EventFetchAllowance;
}

/** What onSubscribe hands graphql-ws's `subscribe` for the hub. */
interface SubscriptionContext {
  viewer: Viewer;
  socket: WebSocket;
  outlet: MessageOutlet;
  id: string;
  fetches: EventFetchAllowance;
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
export function credentialFromConnectionParams(params: Readonly<Record<string, unknown>> | undefined): CredentialHeaders {
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
export function serveSubscriptions(wss: WebSocketServer, options: SubscriptionServerOptions): { dispose: () => void | Promise<void> } {
  const base = options.publicUrl.replace(/\/$/, '');
  const states = new WeakMap<object, ConnectionState>();

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
        // Closed while we were authenticating: its 'close' event has passed, nothing would undo a watch.
        if (socket.readyState !== socket.OPEN) return false;
        const state: ConnectionState = { identity: outcome.identity, costs: new Map(), fetches: new EventFetchAllowance(options.limits.maxFetchesPerEvent) };
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
          ends.push(options.revocations.watch(outcome.tokenId, () => socket.close(CLOSE_UNAUTHORIZED, 'token revoked')));
        }
        socket.once('close', () => {
          for (const end of ends) end();
        });
        states.set(ctx, state);
        return true;
      },
      onSubscribe: (ctx, id, payload) => {
        const state = states.get(ctx);
        if (!state) return [new GraphQLError('connection not initialised', { extensions: { code: GraphQLErrorCode.UNAUTHENTICATED } })];
        if (Object.keys(ctx.subscriptions).length > options.maxSubscriptionsPerConnection) {
          return [new GraphQLError(`at most ${options.maxSubscriptionsPerConnection} subscriptions per connection`, { extensions: { code: GraphQLErrorCode.RATE_LIMITED } })];
        }
        if (typeof payload.query !== 'string' || payload.query.length > MAX_QUERY_LENGTH) {
          return [new GraphQLError('query missing or too long', { extensions: { code: GraphQLErrorCode.BAD_USER_INPUT } })];
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
        const overBudget = bookSubscription(state.costs, (other) => other in ctx.subscriptions, id, measure, options.limits);
        if (overBudget) return [overBudget];
        const args: ExecutionArgs = {
          schema: options.schema,
          document,
          operationName: payload.operationName ?? null,
          variableValues: payload.variables ?? null,
          contextValue: { viewer, socket: ctx.extra.socket, outlet: ctx.extra.sender, id, fetches: state.fetches },
        };
        return args;
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
          new GraphQLError('only subscriptions are served over WebSocket; send queries and mutations to POST /graphql', {
            extensions: { code: GraphQLErrorCode.BAD_USER_INPUT },
          }),
        ],
      }),
    },
    wss,
    { keepAliveMs: 12_000, ...(options.onWrite ? { onWrite: options.onWrite } : {}), logger: options.logger },
  );
}
