import type { SubscriptionDoc } from './models';
import { nextMonthStartUnix } from './period';
import { planName } from './plans';
import type { SpeechStore } from './store';

/** The state of a subscription, without the bookkeeping of the revision that holds it. */
export type SubscriptionState = Omit<SubscriptionDoc, '_id' | 'accountId' | 'rev' | 'at'>;

/** A change: returns the next state, or `null` for "nothing to change". May throw to refuse. */
export type SubscriptionChange = (state: SubscriptionState) => SubscriptionState | null;

const MAX_ATTEMPTS = 400;
/** A revision older than this is pruned once a newer one exists; no change takes that long. */
const PRUNE_AFTER_MS = 10 * 60_000;

export function revisionId(accountId: string, rev: number): string {
  return `${accountId}:${rev.toString().padStart(12, '0')}`;
}

function isDuplicateKey(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 11000;
}

export async function latestRevision(store: SpeechStore, accountId: string): Promise<SubscriptionDoc | null> {
  const doc = await store.models.Subscription.findOne({ accountId }).sort({ rev: -1 }).lean<SubscriptionDoc>();
  return doc ? { ...doc, pending: doc.pending ?? [] } : null;
}

function stateOf(doc: SubscriptionDoc): SubscriptionState {
  const { _id: _i, accountId: _a, rev: _r, at: _t, ...state } = doc;
  return { ...state, pending: state.pending ?? [] };
}

function initialState(store: SpeechStore, plan: string | undefined): SubscriptionState {
  const now = store.now();
  return {
    tier: planName(plan),
    characterCount: 0,
    voiceCount: 0,
    voiceAddEditCounter: 0,
    nextResetUnix: nextMonthStartUnix(now),
    pending: [],
    active: false,
    createdAt: new Date(now),
  };
}

/**
 * Housekeeping applied before every change: the tier follows the identity's plan (auth owns the
 * plan, the speech data owns the counters), and a new month starts a new period. Pending
 * reservations of the old period are dropped: settling them then refunds nothing, which is right
 * because the count restarted at 0.
 */
function normalise(store: SpeechStore, state: SubscriptionState, plan: string | undefined): SubscriptionState {
  const now = store.now();
  let next = state;
  if (plan !== undefined && planName(plan) !== state.tier) next = { ...next, tier: planName(plan) };
  if (next.nextResetUnix <= Math.floor(now / 1000)) {
    next = { ...next, characterCount: 0, voiceAddEditCounter: 0, pending: [], nextResetUnix: nextMonthStartUnix(now) };
  }
  return next;
}

/**
 * Applies `change` to the account's latest state and appends the result as the next revision.
 * If another writer appended first, the insert fails on the unique id and the change is
 * re-applied to the new latest state. Changes are pure functions of the state, so re-applying is
 * safe, and a refusal (throw) is always decided on the latest state.
 */
export async function mutateSubscription(
  store: SpeechStore,
  accountId: string,
  plan: string | undefined,
  change: SubscriptionChange,
): Promise<SubscriptionDoc> {
  const { Subscription } = store.models;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const latest = await latestRevision(store, accountId);
    const base = latest ? stateOf(latest) : initialState(store, plan);
    const normalised = normalise(store, base, plan);
    const changed = change(normalised);
    const next = changed ?? normalised;
    if (latest && next === base) return latest;
    const rev = latest ? latest.rev + 1 : 0;
    const doc: SubscriptionDoc = { _id: revisionId(accountId, rev), accountId, rev, at: new Date(store.now()), ...next };
    try {
      await Subscription.create(doc);
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      // Lost the race: back off a little (randomised, so the losers spread out) and retry.
      await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(50, 2 + attempt)));
      continue;
    }
    if (rev > 0 && rev % 20 === 0) void prune(store, accountId, rev).catch(() => undefined);
    return doc;
  }
  throw new Error(`subscription ${accountId}: too much contention`);
}

async function prune(store: SpeechStore, accountId: string, rev: number): Promise<void> {
  await store.models.Subscription.deleteMany({ accountId, rev: { $lt: rev }, at: { $lt: new Date(store.now() - PRUNE_AFTER_MS) } });
}
