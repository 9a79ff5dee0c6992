import { SpeechError } from '@platform/errors';
import type { SubscriptionDoc } from './models';
import { planName, type Plan } from './plans';
import type { SpeechStore } from './store';
import { mutateSubscription, latestRevision } from './subscription-log';

/**
 * Subscriptions: counters per account, changed only through `mutateSubscription` (an append-only
 * revision log with a unique id per revision), so concurrent requests on any gateway or worker can
 * never push a counter past its limit, without transactions.
 */

export function planOf(store: SpeechStore, tier: string): Plan {
  return store.plans[planName(tier)];
}

/** The account's subscription, created on first use, tier following the plan, monthly reset applied. */
export async function ensureSubscription(store: SpeechStore, accountId: string, plan: string | undefined): Promise<SubscriptionDoc> {
  return mutateSubscription(store, accountId, plan, () => null);
}

/** The current state without creating or changing anything (null for an account never seen). */
export async function peekSubscription(store: SpeechStore, accountId: string): Promise<SubscriptionDoc | null> {
  return latestRevision(store, accountId);
}

export interface Reservation {
  accountId: string;
  jobId: string;
  characters: number;
}

export interface ReserveInput {
  accountId: string;
  plan?: string;
  /** Idempotency key: reserving twice for one job reserves once. */
  jobId: string;
  characters: number;
}

/**
 * Thrown when a request would take the account past its character limit. HTTP 401, as the hosted
 * API answers an exhausted quota (and as the synthesis pipeline maps it); see docs/speech.md.
 */
export function characterLimitExceeded(remaining: number, requested: number): SpeechError {
  return new SpeechError(
    401,
    'character_limit_exceeded',
    `This request needs ${requested} characters and the subscription has ${Math.max(0, remaining)} left this period.`,
  );
}

/**
 * Reserves characters before synthesis: adds them to the count only if the count stays within the
 * plan's limit, recording the reservation in the same revision. Throws `character_limit_exceeded`.
 */
export async function reserveCharacters(store: SpeechStore, input: ReserveInput): Promise<Reservation> {
  const characters = Math.max(0, Math.floor(input.characters));
  let reserved = characters;
  await mutateSubscription(store, input.accountId, input.plan, (state) => {
    const existing = state.pending.find((p) => p.jobId === input.jobId);
    if (existing) {
      reserved = existing.characters;
      return null;
    }
    const limit = planOf(store, state.tier).character_limit;
    if (state.characterCount + characters > limit) throw characterLimitExceeded(limit - state.characterCount, characters);
    return {
      ...state,
      characterCount: state.characterCount + characters,
      pending: [...state.pending, { jobId: input.jobId, characters, at: new Date(store.now()) }],
      active: true,
    };
  });
  return { accountId: input.accountId, jobId: input.jobId, characters: reserved };
}

export interface SettleInput {
  accountId: string;
  jobId: string;
  /** Characters actually synthesised and delivered; 0 for a failed or cancelled job. */
  usedCharacters: number;
}

export interface Settlement {
  /** Characters given back to the account. */
  refunded: number;
  /** False when there was nothing to settle (already settled, or the period reset since). */
  settled: boolean;
}

/**
 * Settles a reservation: removes it and gives back what was not used, in one revision, so a job is
 * settled at most once however often this is called. Use beyond the reservation is not charged.
 */
export async function settleCharacters(store: SpeechStore, input: SettleInput): Promise<Settlement> {
  let result: Settlement = { refunded: 0, settled: false };
  if (!(await latestRevision(store, input.accountId))) return result;
  await mutateSubscription(store, input.accountId, undefined, (state) => {
    result = { refunded: 0, settled: false };
    const entry = state.pending.find((p) => p.jobId === input.jobId);
    if (!entry) return null;
    const refund = Math.max(0, entry.characters - Math.max(0, Math.floor(input.usedCharacters)));
    result = { refunded: refund, settled: true };
    return {
      ...state,
      characterCount: Math.max(0, state.characterCount - refund),
      pending: state.pending.filter((p) => p.jobId !== input.jobId),
    };
  });
  return result;
}

/**
 * Gives back every reservation older than `olderThanMs` in full: a worker that died mid-job never
 * settles, and characters are not charged for audio never delivered. Returns how many were released.
 */
export async function releaseStaleReservations(store: SpeechStore, olderThanMs: number): Promise<number> {
  const cutoff = store.now() - olderThanMs;
  const accounts: string[] = await store.models.Subscription.distinct('accountId', { 'pending.at': { $lt: new Date(cutoff) } });
  let released = 0;
  for (const accountId of accounts) {
    const latest = await latestRevision(store, accountId);
    for (const entry of latest?.pending ?? []) {
      if (new Date(entry.at).getTime() >= cutoff) continue;
      const result = await settleCharacters(store, { accountId, jobId: entry.jobId, usedCharacters: 0 });
      if (result.settled) released++;
    }
  }
  return released;
}

/** Thrown when the plan's voice limit or monthly voice add/edit allowance is used up (HTTP 429, see docs/speech.md). */
export function voiceQuotaExceeded(message: string): SpeechError {
  return new SpeechError(429, 'quota_exceeded', message);
}

/**
 * Takes one voice add/edit from the plan's monthly allowance and, for an add, one voice slot, in
 * one revision. Callers give them back with `releaseVoiceSlot` if the change then fails.
 */
export async function claimVoiceChange(store: SpeechStore, accountId: string, plan: string | undefined, kind: 'add' | 'edit'): Promise<void> {
  await mutateSubscription(store, accountId, plan, (state) => {
    const limits = planOf(store, state.tier);
    if (kind === 'add' && state.voiceCount >= limits.voice_limit) {
      throw voiceQuotaExceeded(`The ${state.tier} plan allows ${limits.voice_limit} voices; delete one to add another.`);
    }
    if (state.voiceAddEditCounter >= limits.max_voice_add_edits) {
      throw voiceQuotaExceeded(`The ${state.tier} plan allows ${limits.max_voice_add_edits} voice additions or edits per month.`);
    }
    return {
      ...state,
      voiceAddEditCounter: state.voiceAddEditCounter + 1,
      voiceCount: state.voiceCount + (kind === 'add' ? 1 : 0),
      active: true,
    };
  });
}

/** Undoes `claimVoiceChange` after a failed change, or frees the slot of a deleted voice. */
export async function releaseVoiceSlot(store: SpeechStore, accountId: string, kind: 'add' | 'edit' | 'delete'): Promise<void> {
  await mutateSubscription(store, accountId, undefined, (state) => ({
    ...state,
    voiceCount: Math.max(0, state.voiceCount - (kind === 'edit' ? 0 : 1)),
    voiceAddEditCounter: kind === 'delete' ? state.voiceAddEditCounter : Math.max(0, state.voiceAddEditCounter - 1),
  }));
}
