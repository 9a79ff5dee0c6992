import type { DocumentNode, ExecutionResult } from 'graphql';
import type { SubscriptionHub } from '../src/subscriptions/hub';
import type { EventFetchAllowance } from '../src/subscriptions/subscription-budget';
import type { SubscriptionStream } from '../src/subscriptions/subscription-stream';
import type { Viewer } from '../src/subscriptions/viewer';

/** One subscription as its connection sees it: the messages written to the socket, which a test can block. */
export interface Subscribed {
  stream: SubscriptionStream;
  messages: string[];
  outlet: { blocked: boolean };
  /** The socket drained: unblocks it and tells the streams. */
  unblock: () => void;
}

export interface SubscribeArgs {
  document: DocumentNode;
  viewer: Viewer;
  variables?: Record<string, unknown>;
  onOverflow?: () => void;
  fetches?: readonly EventFetchAllowance[];
}

let ids = 0;

/** Subscribes through `hub` with a recording outlet in place of a socket's sender; throws on a refusal. */
export function subscribeRecorded(hub: SubscriptionHub, args: SubscribeArgs): Subscribed {
  const messages: string[] = [];
  const drains = new Set<() => void>();
  const outlet = {
    blocked: false,
    send: (message: string) => messages.push(message),
    onDrain: (listener: () => void) => {
      drains.add(listener);
      return () => drains.delete(listener);
    },
  };
  ids += 1;
  const result = hub.subscribe({ onOverflow: () => undefined, ...args, id: `sub-${ids}`, outlet });
  if (!(Symbol.asyncIterator in result)) throw new Error(JSON.stringify(result));
  const unblock = () => {
    outlet.blocked = false;
    for (const drain of drains) drain();
  };
  return { stream: result as SubscriptionStream, messages, outlet, unblock };
}

/** The next graphql-transport-ws message written for `s`: a `next` for its own id; its payload. */
export function takeNext(s: Subscribed): ExecutionResult {
  const text = s.messages.shift();
  if (text === undefined) throw new Error('nothing was written');
  const message = JSON.parse(text) as { id: string; type: string; payload: ExecutionResult };
  expect(Object.keys(message)).toEqual(['id', 'type', 'payload']);
  expect(message.type).toBe('next');
  expect(message.id).toMatch(/^sub-\d+$/);
  return message.payload;
}
