import { createHash } from 'node:crypto';
import {
  execute,
  getArgumentValues,
  getOperationAST,
  GraphQLError,
  Kind,
  print,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLResolveInfo,
  type GraphQLSchema,
} from 'graphql';
import type { ContentEvent } from '@platform/events';
import type { Logger } from '@platform/logger';
import { GraphQLErrorCode } from '@platform/errors';
import { subscriptionField } from '@platform/graphql-schema';
import { routeKey, routeOfEvent } from './event-routes';
import { nestedFieldQuery, selectsEmail, type FieldFetcher } from './nested-fetch';
import { SubscriptionStream, type MessageOutlet } from './subscription-stream';
import type { EventFetchAllowance } from './subscription-budget';
import { eventFieldResolver, markFetched, type EventContext } from './subscription-schema';
import { canSeeEvent, type Viewer } from './viewer';

interface SubscribeRequest {
  document: DocumentNode;
  operationName?: string | null;
  variables?: Record<string, unknown> | null;
  viewer: Viewer;
  /** The subscription's id on its connection (graphql-transport-ws `subscribe`). */
  id: string;
  /** Its connection's sender. */
  outlet: MessageOutlet;
  /** Called once when this subscriber's buffer overflows (close its connection). */
  onOverflow: () => void;
  /**
   * The nested fetches it may cause per event: its connection's allowance, and its address's or
   * account's (shared by all of their connections on this replica). A fetch needs room in every one.
   * Unbounded without any.
   */
  fetches?: readonly EventFetchAllowance[];
}

interface Subscriber {
  viewer: Viewer;
  stream: SubscriptionStream;
  fetches?: readonly EventFetchAllowance[];
}

/** Subscribers whose results are identical: same document, variables and (if it matters) viewer. */
interface Group {
  key: string;
  route: string;
  document: DocumentNode;
  operationName: string | null;
  variables: Record<string, unknown>;
  viewer: Viewer;
  subscribers: Set<Subscriber>;
}

interface HubOptions {
  schema: GraphQLSchema;
  fetchField: FieldFetcher;
  logger: Logger;
  /** Per-subscriber backlog while its socket is blocked (events). */
  capacity: number;
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableJson((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function errorResult(message: string, code: string): ExecutionResult {
  return { errors: [new GraphQLError(message, { extensions: { code } })] };
}

/** A `next` message's payload as graphql-ws writes it: the result, with `errors` only when there are some. */
function serializeResult({ errors, ...rest }: ExecutionResult): string {
  return JSON.stringify(errors ? { ...rest, errors: errors.map((error) => error.toJSON()) } : rest);
}

/**
 * Fans content events out to this replica's subscribers. Subscribers with the same selection
 * share a group: each event is executed and serialised once per group, and the one message
 * payload is written to every member allowed to see it (subscription-stream.ts). Nested fields missing from the snapshot are fetched once per event
 * (a cache shared by all groups: a fetch another group already made costs nothing). A new fetch is
 * charged to the connections of the group's recipients and made while one of them has fetches left
 * for this event; otherwise the field fails with QUERY_TOO_COMPLEX. Events are published one at a time, so each subscriber gets
 * them in the order the feed delivers them (per entity: Kafka partition order).
 */
export class SubscriptionHub {
  private readonly groups = new Map<string, Group>();
  private readonly routes = new Map<string, Set<Group>>();

  constructor(private readonly options: HubOptions) {}

  stats(): { groups: number; subscribers: number } {
    let subscribers = 0;
    for (const group of this.groups.values()) subscribers += group.subscribers.size;
    return { groups: this.groups.size, subscribers };
  }

  subscribe(request: SubscribeRequest): AsyncIterableIterator<ExecutionResult> | ExecutionResult {
    const { schema } = this.options;
    const operation = getOperationAST(request.document, request.operationName ?? undefined);
    if (!operation || operation.operation !== 'subscription') {
      return errorResult(
        'only subscriptions are served over WebSocket; send queries and mutations to POST /graphql',
        GraphQLErrorCode.BAD_USER_INPUT,
      );
    }
    const selection = operation.selectionSet.selections[0];
    if (!selection || selection.kind !== Kind.FIELD || operation.selectionSet.selections.length !== 1) {
      return errorResult(
        'a subscription selects exactly one root field, written as a field',
        GraphQLErrorCode.BAD_USER_INPUT,
      );
    }
    const fieldName = selection.name.value;
    const definition = schema.getSubscriptionType()?.getFields()[fieldName];
    const served = subscriptionField(fieldName);
    if (!definition || !served) {
      return errorResult(`unknown subscription ${fieldName}`, GraphQLErrorCode.BAD_USER_INPUT);
    }
    const variables = request.variables ?? {};
    let args: Record<string, unknown>;
    try {
      args = getArgumentValues(definition, selection, variables);
    } catch (err) {
      return errorResult(err instanceof Error ? err.message : 'invalid arguments', GraphQLErrorCode.BAD_USER_INPUT);
    }
    const filterName = served.filter?.argument;
    const filterValue = filterName ? args[filterName] : undefined;
    if (filterName && (typeof filterValue !== 'string' || filterValue.length === 0 || filterValue.length > 200)) {
      return errorResult(`${filterName} must be a non-empty ID`, GraphQLErrorCode.BAD_USER_INPUT);
    }
    const route = routeKey(fieldName, filterValue as string | undefined);
    const viewerDependent = selectsEmail(request.document);
    const viewerKey = viewerDependent
      ? request.viewer.roles.includes('ADMIN')
        ? 'admin'
        : `user:${request.viewer.sub ?? ''}`
      : '';
    const key = createHash('sha256')
      .update([print(request.document), request.operationName ?? '', stableJson(variables), viewerKey].join('\u0000'))
      .digest('base64url');

    let group = this.groups.get(key);
    if (!group) {
      group = {
        key,
        route,
        document: request.document,
        operationName: request.operationName ?? null,
        variables,
        viewer: request.viewer,
        subscribers: new Set(),
      };
      this.groups.set(key, group);
      const routed = this.routes.get(route) ?? new Set<Group>();
      routed.add(group);
      this.routes.set(route, routed);
    }
    const owner = group;
    const subscriber: Subscriber = {
      viewer: request.viewer,
      stream: new SubscriptionStream(request.id, request.outlet, this.options.capacity, request.onOverflow, () =>
        this.leave(owner, subscriber),
      ),
      ...(request.fetches ? { fetches: request.fetches } : {}),
    };
    owner.subscribers.add(subscriber);
    return subscriber.stream;
  }

  /** Delivers one event to every matching subscriber of this replica. */
  async publish(event: ContentEvent): Promise<void> {
    const target = routeOfEvent(event);
    if (!target) return;
    const groups = this.routes.get(routeKey(target.field, target.argument?.value));
    if (!groups || groups.size === 0) return;
    const cache = new Map<string, Promise<unknown>>();
    // One group's fetches, charged to its recipients (none listed: unbounded). A recipient can pay
    // while each of its allowances has room; every allowance of those that can is charged once.
    const fetcherFor =
      (payers: (readonly EventFetchAllowance[])[] | null) =>
      (typeName: string, id: string, info: GraphQLResolveInfo): Promise<unknown> => {
        const built = nestedFieldQuery(typeName, id, info);
        if (!built) return Promise.resolve(null);
        let pending = cache.get(built.key);
        if (!pending) {
          if (payers) {
            const open = payers.filter((allowances) => allowances.every((allowance) => allowance.available(event.id)));
            if (open.length === 0) {
              const spent = payers[0]!.find((allowance) => !allowance.available(event.id)) ?? payers[0]![0]!;
              return Promise.reject(spent.refusal());
            }
            for (const allowance of new Set(open.flat())) allowance.charge(event.id);
          }
          pending = this.options.fetchField(built.query, built.variables);
          cache.set(built.key, pending);
        }
        return pending.then((entity) => {
          const value =
            typeof entity === 'object' && entity !== null
              ? (entity as Record<string, unknown>)[String(info.path.key)]
              : null;
          markFetched(value);
          return value;
        });
      };
    const work = [...groups].map(async (group) => {
      const recipients = [...group.subscribers].filter((s) => canSeeEvent(event, s.viewer));
      if (recipients.length === 0) return;
      const payers = recipients.flatMap((s) => (s.fetches && s.fetches.length > 0 ? [s.fetches] : []));
      const bounded = payers.length === recipients.length ? payers : null;
      const context: EventContext = { viewer: group.viewer, fetchNested: fetcherFor(bounded) };
      let result: ExecutionResult;
      try {
        result = await execute({
          schema: this.options.schema,
          document: group.document,
          rootValue: { [target.field]: event.data },
          contextValue: context,
          variableValues: group.variables,
          operationName: group.operationName,
          fieldResolver: eventFieldResolver,
        });
      } catch (err) {
        this.options.logger.error({ err, event: event.id }, 'subscription execution failed');
        result = errorResult('event could not be delivered', GraphQLErrorCode.INTERNAL_SERVER_ERROR);
      }
      const payload = serializeResult(result);
      return () => {
        for (const subscriber of recipients) subscriber.stream.deliver(payload);
      };
    });
    // Results are written after every group has executed, in one synchronous pass.
    for (const deliver of await Promise.all(work)) deliver?.();
  }

  /** Ends every subscription (shutdown). */
  closeAll(): void {
    for (const group of [...this.groups.values()])
      for (const subscriber of [...group.subscribers]) void subscriber.stream.return();
  }

  private leave(group: Group, subscriber: Subscriber): void {
    group.subscribers.delete(subscriber);
    if (group.subscribers.size > 0) return;
    this.groups.delete(group.key);
    const routed = this.routes.get(group.route);
    routed?.delete(group);
    if (routed && routed.size === 0) this.routes.delete(group.route);
  }
}
