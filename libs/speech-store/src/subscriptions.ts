import type { ClientSession, PipelineStage } from 'mongoose';
import { SpeechError } from '@platform/errors';
import type { SubscriptionDoc } from './documents';
import { failUnsettledItem } from './history';
import { nextMonthStartUnix } from './period';
import { planName, type Plan } from './plan-allowances';
import type { SpeechStore } from './store';

/**
 * Subscriptions: one document per account (`_id` = account id) holding its counters. Each change
 * is one conditional update whose filter is the rule it enforces (a reservation applies only while
 * `characterCount ≤ limit − n`), so concurrent requests on any gateway or worker can never push a
 * counter past its limit; the server decides, nothing is retried. A change that spans documents
 * (a voice and the voice counters) is a transaction (voices.ts).
 */

export function planOf(store: SpeechStore, tier: string): Plan {
  return store.plans[planName(tier)];
}

/**
 * The one update that brings a subscription up to date, as an aggregation pipeline (atomic, one
 * round trip): created on first use, the tier following the identity's plan (auth owns the plan,
 * the speech data owns the counters), and a new month starting a new period. Pending reservations
 * of the old period are dropped with it: settling them then refunds nothing, which is right
 * because the count restarted at 0.
 */
function upToDateUpdate(now: number, plan: string | undefined): PipelineStage.Set[] {
  const due = { $lte: [{ $ifNull: ['$nextResetUnix', 0] }, Math.floor(now / 1000)] };
  /** Restarts with the period (a new account has no period yet, so it starts one). */
  const perPeriod = (field: string, fresh: unknown) => ({ $cond: [due, { $literal: fresh }, `$${field}`] });
  /** Set once, when the account is first seen. */
  const initially = (field: string, initial: unknown) => ({ $ifNull: [`$${field}`, { $literal: initial }] });
  return [
    {
      $set: {
        tier: plan === undefined ? initially('tier', planName(undefined)) : { $literal: planName(plan) },
        characterCount: perPeriod('characterCount', 0),
        voiceAddEditCounter: perPeriod('voiceAddEditCounter', 0),
        pending: perPeriod('pending', []),
        nextResetUnix: perPeriod('nextResetUnix', nextMonthStartUnix(now)),
        voiceCount: initially('voiceCount', 0),
        active: initially('active', false),
        createdAt: initially('createdAt', new Date(now)),
      },
    },
  ];
}

/** The subscription brought up to date (see `upToDateUpdate`); null for an unknown account unless `create`. */
async function upToDate(
  store: SpeechStore,
  accountId: string,
  plan: string | undefined,
  options: { create: boolean; session?: ClientSession },
): Promise<SubscriptionDoc | null> {
  return store.models.Subscription.findOneAndUpdate({ _id: accountId }, upToDateUpdate(store.now(), plan), {
    upsert: options.create,
    new: true,
    session: options.session ?? null,
  }).lean<SubscriptionDoc>();
}

/** The account's subscription, created on first use, tier following the plan, monthly reset applied. */
export async function ensureSubscription(
  store: SpeechStore,
  accountId: string,
  plan: string | undefined,
): Promise<SubscriptionDoc> {
  const sub = await upToDate(store, accountId, plan, { create: true });
  if (!sub) throw new Error(`subscription ${accountId}: the upsert returned nothing`);
  return sub;
}

/** The current state without creating or changing anything (null for an account never seen). */
export async function peekSubscription(store: SpeechStore, accountId: string): Promise<SubscriptionDoc | null> {
  return store.models.Subscription.findById(accountId).lean<SubscriptionDoc>();
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
export function characterLimitExceeded(remaining: number, requested: number, resetUnix?: number): SpeechError {
  // Which limit, and when it frees: the count resets at the start of the next period (the subscription's
  // `next_character_count_reset_unix`).
  const resets = resetUnix ? ` The count resets at ${new Date(resetUnix * 1000).toISOString()}.` : '';
  return new SpeechError(
    401,
    'character_limit_exceeded',
    `This request needs ${requested} characters and the subscription has ${Math.max(0, remaining)} left this period (monthly character limit).${resets}`,
  );
}

/** A guard can only fail because another change landed in between; that cannot go on for long. */
const MAX_ATTEMPTS = 50;

/**
 * Reserves characters before synthesis: one update adds them to the count and records the
 * reservation, and applies only if the count stays within the plan's limit, the job has no
 * reservation yet, and the tier and period are the ones the limit was taken from. Throws
 * `character_limit_exceeded`.
 */
export async function reserveCharacters(store: SpeechStore, input: ReserveInput): Promise<Reservation> {
  const characters = Math.max(0, Math.floor(input.characters));
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const sub = await ensureSubscription(store, input.accountId, input.plan);
    const existing = sub.pending.find((p) => p.jobId === input.jobId);
    if (existing) return { accountId: input.accountId, jobId: input.jobId, characters: existing.characters };
    const limit = planOf(store, sub.tier).character_limit;
    if (sub.characterCount + characters > limit)
      throw characterLimitExceeded(limit - sub.characterCount, characters, sub.nextResetUnix);
    const reserved = await store.models.Subscription.updateOne(
      {
        _id: input.accountId,
        tier: sub.tier,
        nextResetUnix: sub.nextResetUnix,
        characterCount: { $lte: limit - characters },
        'pending.jobId': { $ne: input.jobId },
      },
      {
        $inc: { characterCount: characters },
        $push: { pending: { jobId: input.jobId, characters, at: new Date(store.now()) } },
        $set: { active: true },
      },
    );
    if (reserved.modifiedCount === 1) return { accountId: input.accountId, jobId: input.jobId, characters };
    // The guard failed: concurrent reservations took what was left, the same job was reserved
    // concurrently, or the plan or the period changed. Decide again on the state as it is now.
  }
  throw new Error(`subscription ${input.accountId}: too much contention`);
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

const NOTHING_SETTLED: Settlement = { refunded: 0, settled: false };

/**
 * Settles a reservation: one update removes exactly the entry read and gives back what was not
 * used, and applies only while that entry is there, so a job is settled at most once however
 * often this is called. Use beyond the reservation is not charged.
 */
export async function settleCharacters(store: SpeechStore, input: SettleInput): Promise<Settlement> {
  const sub = await upToDate(store, input.accountId, undefined, { create: false });
  const entry = sub?.pending.find((p) => p.jobId === input.jobId);
  if (!sub || !entry) return NOTHING_SETTLED;
  const refund = Math.max(0, entry.characters - Math.max(0, Math.floor(input.usedCharacters)));
  const settled = await store.models.Subscription.updateOne(
    {
      _id: input.accountId,
      nextResetUnix: sub.nextResetUnix,
      pending: { $elemMatch: { jobId: entry.jobId, characters: entry.characters, at: entry.at } },
    },
    // Never below 0: the count includes every pending entry (models.ts).
    { $inc: { characterCount: -refund }, $pull: { pending: { jobId: entry.jobId } } },
  );
  // Not applied: a concurrent settlement of the same job, or the period reset, removed it first.
  return settled.modifiedCount === 1 ? { refunded: refund, settled: true } : NOTHING_SETTLED;
}

/**
 * Gives back every reservation older than `olderThanMs` in full: nobody settled it (the gateway that
 * relayed the job died, or could not reach the store for longer than it retries), and characters are
 * not charged for audio whose delivery nobody confirmed. The job's history item, if its worker recorded
 * it `complete`, becomes `failed` without audio (`failUnsettledItem`), so an item is `complete` exactly
 * when it was charged. Returns how many were released.
 */
export async function releaseStaleReservations(store: SpeechStore, olderThanMs: number): Promise<number> {
  const cutoff = new Date(store.now() - olderThanMs);
  const subs = await store.models.Subscription.find({ 'pending.at': { $lt: cutoff } }, { pending: 1 }).lean<
    Pick<SubscriptionDoc, '_id' | 'pending'>[]
  >();
  let released = 0;
  for (const sub of subs) {
    for (const entry of sub.pending) {
      if (new Date(entry.at) >= cutoff) continue;
      const result = await settleCharacters(store, { accountId: sub._id, jobId: entry.jobId, usedCharacters: 0 });
      if (!result.settled) continue;
      released++;
      await failUnsettledItem(store, entry.jobId);
    }
  }
  return released;
}

/** Thrown when the plan's voice limit or monthly voice add/edit allowance is used up (HTTP 429, see docs/speech.md). */
export function voiceQuotaExceeded(message: string): SpeechError {
  return new SpeechError(429, 'quota_exceeded', message);
}

type VoiceChange = 'add' | 'edit';

/** Why the plan refuses the change in this state, or null when it allows it. */
function voiceChangeRefusal(store: SpeechStore, sub: SubscriptionDoc, kind: VoiceChange): SpeechError | null {
  const limits = planOf(store, sub.tier);
  if (kind === 'add' && sub.voiceCount >= limits.voice_limit) {
    return voiceQuotaExceeded(`The ${sub.tier} plan allows ${limits.voice_limit} voices; delete one to add another.`);
  }
  if (sub.voiceAddEditCounter >= limits.max_voice_add_edits) {
    return voiceQuotaExceeded(
      `The ${sub.tier} plan allows ${limits.max_voice_add_edits} voice additions or edits per month.`,
    );
  }
  return null;
}

/**
 * Refuses a voice change the plan does not allow as things stand, before the caller does the
 * costly part (storing samples). Advisory only: the decision that counts is `claimVoiceChange`'s.
 */
export async function checkVoiceChange(
  store: SpeechStore,
  accountId: string,
  plan: string | undefined,
  kind: VoiceChange,
): Promise<void> {
  const refusal = voiceChangeRefusal(store, await ensureSubscription(store, accountId, plan), kind);
  if (refusal) throw refusal;
}

/**
 * Takes one voice add/edit from the plan's monthly allowance and, for an add, one voice slot,
 * within the caller's transaction, which writes the voice too: the counters change if and only if
 * the voice does. Read, decision and write are safe in a transaction because every claim writes
 * the subscription document, and of two transactions writing one document only one commits; the
 * other runs again on the new state (transaction.ts). Throws `quota_exceeded`.
 */
export async function claimVoiceChange(
  store: SpeechStore,
  session: ClientSession,
  accountId: string,
  plan: string | undefined,
  kind: VoiceChange,
): Promise<void> {
  const sub = await upToDate(store, accountId, plan, { create: true, session });
  if (!sub) throw new Error(`subscription ${accountId}: the upsert returned nothing`);
  const refusal = voiceChangeRefusal(store, sub, kind);
  if (refusal) throw refusal;
  await store.models.Subscription.updateOne(
    { _id: accountId },
    { $inc: { voiceAddEditCounter: 1, voiceCount: kind === 'add' ? 1 : 0 }, $set: { active: true } },
    { session },
  );
}

/** Frees the slot of a voice deleted in the caller's transaction. */
export async function releaseVoiceSlot(store: SpeechStore, session: ClientSession, accountId: string): Promise<void> {
  await store.models.Subscription.updateOne(
    { _id: accountId, voiceCount: { $gt: 0 } },
    { $inc: { voiceCount: -1 } },
    { session },
  );
}
