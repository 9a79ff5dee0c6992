import { GraphQLError } from 'graphql';
import { GraphQLErrorCode } from '@platform/errors';
import { queryLimitError, type QueryMeasure } from '@platform/graphql-schema';

/**
 * What one graphql-ws connection may ask of the platform. Every event runs a subscription's
 * selection again, so its cost (libs/graphql-schema's model) is paid per event: each subscription
 * has a budget, and so do all of a connection's subscriptions together.
 */
export interface SubscriptionLimits {
  /** Cost of one subscription, per event (`SUBSCRIPTION_MAX_COST`). */
  maxCost: number;
  /** Cost of all of one connection's active subscriptions together, per event (`SUBSCRIPTION_CONNECTION_MAX_COST`). */
  maxConnectionCost: number;
  /** Nested fetches from content one event may cause for one connection (`SUBSCRIPTION_CONNECTION_MAX_FETCHES`). */
  maxFetchesPerEvent: number;
}

/**
 * Books subscription `id`'s cost against its connection, or says which budget it would break.
 * `costs` holds the connection's booked subscriptions; those no longer `active` (completed by
 * either side) are released first, so completing one frees its share.
 */
export function bookSubscription(
  costs: Map<string, number>,
  active: (id: string) => boolean,
  id: string,
  measure: QueryMeasure,
  limits: SubscriptionLimits,
): GraphQLError | null {
  for (const key of [...costs.keys()]) if (key === id || !active(key)) costs.delete(key);
  const own = queryLimitError(measure, limits.maxCost);
  if (own) return own;
  let total = measure.cost;
  for (const cost of costs.values()) total += cost;
  if (total > limits.maxConnectionCost) {
    return new GraphQLError(
      `this connection's subscriptions would cost ${total} per event; at most ${limits.maxConnectionCost} are allowed`,
      {
        extensions: { code: GraphQLErrorCode.QUERY_TOO_COMPLEX, cost: total, maxCost: limits.maxConnectionCost },
      },
    );
  }
  costs.set(id, measure.cost);
  return null;
}

/** Whose fetches an allowance counts: one connection's, or every connection of a client address or account on this replica. */
export type FetchPayer = 'connection' | 'address' | 'account';

/**
 * How many nested fetches one connection's subscriptions (or all of an address's or account's
 * connections' together) may still cause for the event being published. The hub publishes one
 * event at a time, so the count restarts when the event changes.
 */
export class EventFetchAllowance {
  private eventId: string | null = null;
  private used = 0;

  constructor(
    readonly max: number,
    readonly payer: FetchPayer = 'connection',
  ) {}

  /** The error of a field this allowance cannot pay for. */
  refusal(): GraphQLError {
    return new GraphQLError(
      `this ${this.payer}'s subscriptions need more than ${this.max} nested fetches for one event`,
      {
        extensions: { code: GraphQLErrorCode.QUERY_TOO_COMPLEX, maxFetches: this.max },
      },
    );
  }

  /** True if the connection may cause another fetch for `eventId`. */
  available(eventId: string): boolean {
    if (this.eventId !== eventId) {
      this.eventId = eventId;
      this.used = 0;
    }
    return this.used < this.max;
  }

  charge(eventId: string): void {
    if (this.available(eventId)) this.used += 1;
  }
}
