import type { IncomingMessage } from 'node:http';
import { GraphQLError } from 'graphql';
import type { WebSocket } from 'ws';
import { GraphQLErrorCode } from '@platform/errors';
import type { Identity } from '@platform/identity';
import type { ConnectionSlot, OpenConnection } from '../limits/connection-slots';
import { CLOSE_TOO_MANY_REQUESTS } from './close-codes';
import { EventFetchAllowance, type FetchPayer } from './subscription-budget';

/**
 * What one client address (anonymous callers) or one account (authenticated ones) may hold over
 * all of its graphql-ws connections (docs/security.md "WebSocket limits"). Connections and
 * subscriptions are counted across replicas (limits/connection-slots.ts); nested fetches per event
 * across the subject's connections on each replica, since each replica fetches for its own subscribers.
 */
interface SubscriberCaps {
  connectionsPerAddress: number;
  connectionsPerAccount: number;
  subscriptionsPerAddress: number;
  subscriptionsPerAccount: number;
  fetchesPerAddress: number;
  fetchesPerAccount: number;
}

interface SubscriberLimitDeps {
  openConnection: OpenConnection;
  /** The upgrade request's client IP (limits/client-address.ts). */
  addressOf: (req: IncomingMessage) => string;
  /** Who shares the limits (limits/plan-limits.ts `limitSubject`'s key): the account, or the address when `identity` is null or anonymous. */
  subjectOf: (identity: Identity | null, address: string) => string;
  caps: SubscriberCaps;
}

/** An admitted connection's standing with its address or account. */
export interface ConnectionStanding {
  /** The nested fetches per event that all of the subject's connections on this replica share. */
  fetches: EventFetchAllowance;
  /** Counts one more active subscription; the error to answer when the subject already holds its cap. */
  addSubscription(): Promise<GraphQLError | null>;
  removeSubscription(): void;
}

interface Held {
  slot: Promise<ConnectionSlot | null>;
  closed: boolean;
}

export function createSubscriberLimits(deps: SubscriberLimitDeps) {
  const { caps } = deps;
  const held = new WeakMap<WebSocket, Held>();
  const allowances = new Map<string, { allowance: EventFetchAllowance; holders: number }>();

  const shareAllowance = (
    subject: string,
    payer: FetchPayer,
  ): { allowance: EventFetchAllowance; leave: () => void } => {
    let entry = allowances.get(subject);
    if (!entry) {
      entry = {
        allowance: new EventFetchAllowance(
          payer === 'address' ? caps.fetchesPerAddress : caps.fetchesPerAccount,
          payer,
        ),
        holders: 0,
      };
      allowances.set(subject, entry);
    }
    entry.holders += 1;
    const shared = entry;
    return {
      allowance: shared.allowance,
      leave: () => {
        shared.holders -= 1;
        if (shared.holders === 0 && allowances.get(subject) === shared) allowances.delete(subject);
      },
    };
  };

  return {
    /**
     * A socket was accepted: until its `connection_init` says who it is, it counts against its
     * address, and is closed 4429 at once when the address already holds its connections.
     */
    opened(socket: WebSocket, request: IncomingMessage): void {
      const slot = deps.openConnection(deps.subjectOf(null, deps.addressOf(request)), caps.connectionsPerAddress);
      const entry: Held = { slot, closed: false };
      held.set(socket, entry);
      void slot.then((granted) => {
        if (granted) return;
        socket.close(
          CLOSE_TOO_MANY_REQUESTS,
          `too many connections: at most ${caps.connectionsPerAddress} per client address`,
        );
      });
      socket.once('close', () => {
        entry.closed = true;
        void entry.slot.then((granted) => granted?.release());
      });
    },

    /**
     * `identity` authenticated the socket: an account's connection moves from its address's count
     * to its account's. The standing, or the close reason (4429) when the subject is full; null when
     * the socket closed meanwhile or was already refused.
     */
    async admit(
      socket: WebSocket,
      request: IncomingMessage,
      identity: Identity,
    ): Promise<ConnectionStanding | { refused: string } | null> {
      const entry = held.get(socket);
      const before = entry ? await entry.slot : null;
      if (!entry || !before || entry.closed) return null;
      const address = deps.addressOf(request);
      const subject = deps.subjectOf(identity, address);
      const anonymous = subject === deps.subjectOf(null, address);
      let slot = before;
      if (!anonymous) {
        const own = await deps.openConnection(subject, caps.connectionsPerAccount);
        if (!own) return { refused: `too many connections: at most ${caps.connectionsPerAccount} per account` };
        slot = own;
        entry.slot = Promise.resolve(own);
        void before.release();
        if (entry.closed) {
          await own.release();
          return null;
        }
      }
      const payer: FetchPayer = anonymous ? 'address' : 'account';
      const fetches = shareAllowance(subject, payer);
      socket.once('close', fetches.leave);
      const max = anonymous ? caps.subscriptionsPerAddress : caps.subscriptionsPerAccount;
      return {
        fetches: fetches.allowance,
        async addSubscription() {
          if (await slot.addSubscription(max)) return null;
          return new GraphQLError(
            `at most ${max} active subscriptions per ${payer === 'address' ? 'client address' : 'account'}, over all its connections`,
            {
              extensions: { code: GraphQLErrorCode.RATE_LIMITED },
            },
          );
        },
        removeSubscription: () => slot.removeSubscription(),
      };
    },
  };
}

export type SubscriberLimits = ReturnType<typeof createSubscriberLimits>;
