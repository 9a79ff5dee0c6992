import { randomUUID } from 'node:crypto';
import { findClient } from '../clients/clients';
import type { Deps } from '../deps';
import { postForm } from './logout-post';
import { countLogoutDelivery } from './logout-metrics';
import { signLogoutToken } from './logout-token';

export type OutboxDeps = Pick<Deps, 'clients' | 'logoutDeliveries'>;
type DeliveryDeps = Pick<Deps, 'config' | 'keys' | 'logger' | 'clients' | 'logoutDeliveries'>;

/** The longest wait between two attempts (the backoff doubles up to it). */
const MAX_RETRY_DELAY_MS = 300_000;
/** How often a replica looks for due deliveries when it found none. */
const POLL_MS = 1000;
/** Deliveries one replica attempts at once (a slow RP holds one slot up to the timeout, not the queue). */
const BATCH = 8;
/** Failed deliveries are kept this long for inspection. */
const FAILED_KEPT_MS = 7 * 24 * 3600 * 1000;

/**
 * Queues one logout token per client of `clientIds` that registered a `backchannel_logout_uri` (the
 * others have nothing to be told). The first attempt is due at once.
 */
export async function enqueueLogouts(
  deps: OutboxDeps,
  logout: { sub: string; sid?: string; clientIds: string[] },
): Promise<number> {
  const clients = await Promise.all([...new Set(logout.clientIds)].map((id) => findClient(deps.clients, id)));
  const docs = clients
    .filter((client) => client?.backchannelLogoutUri)
    .map((client) => ({
      _id: randomUUID(),
      clientId: client!._id,
      sub: logout.sub,
      sid: logout.sid ?? null,
      state: 'pending',
      attempts: 0,
      nextAttemptAt: new Date(),
    }));
  if (docs.length) await deps.logoutDeliveries.insertMany(docs);
  return docs.length;
}

/** The wait before attempt `attempts + 1`: the first retry after BACKCHANNEL_LOGOUT_RETRY_SECONDS, then doubling. */
export function retryDelayMs(firstDelaySeconds: number, attempts: number): number {
  return Math.min(firstDelaySeconds * 1000 * 2 ** Math.max(0, attempts - 1), MAX_RETRY_DELAY_MS);
}

/**
 * Claims a due delivery: moving its due time past the attempt's lease is the lock, so two replicas
 * never send the same attempt, and a replica that dies mid-attempt leaves it due again after the lease.
 */
async function claim(deps: DeliveryDeps) {
  const now = Date.now();
  const lease = new Date(now + deps.config.BACKCHANNEL_LOGOUT_TIMEOUT_MS + 30_000);
  return deps.logoutDeliveries
    .findOneAndUpdate(
      { state: 'pending', nextAttemptAt: { $lte: new Date(now) } },
      { $set: { nextAttemptAt: lease } },
      { sort: { nextAttemptAt: 1 }, new: true },
    )
    .lean();
}

async function giveUp(deps: DeliveryDeps, id: string, attempts: number, reason: string): Promise<void> {
  await deps.logoutDeliveries.updateOne(
    { _id: id },
    { $set: { state: 'failed', attempts, lastError: reason, expiresAt: new Date(Date.now() + FAILED_KEPT_MS) } },
  );
  countLogoutDelivery('failed');
}

/** One attempt of one claimed delivery, and what follows from its outcome. */
async function attempt(deps: DeliveryDeps, doc: NonNullable<Awaited<ReturnType<typeof claim>>>): Promise<void> {
  const { config } = deps;
  const attempts = doc.attempts + 1;
  const client = await findClient(deps.clients, doc.clientId);
  if (!client?.backchannelLogoutUri) {
    // The client was deleted or no longer wants logouts since: nobody to tell.
    await deps.logoutDeliveries.deleteOne({ _id: doc._id });
    return;
  }
  const token = await signLogoutToken(deps, {
    clientId: doc.clientId,
    sub: doc.sub,
    jti: doc._id,
    ...(doc.sid ? { sid: doc.sid } : {}),
  });
  const outcome = await postForm(client.backchannelLogoutUri, new URLSearchParams({ logout_token: token }).toString(), {
    timeoutMs: config.BACKCHANNEL_LOGOUT_TIMEOUT_MS,
    allowPrivate: config.BACKCHANNEL_LOGOUT_ALLOW_PRIVATE,
  });
  if (outcome.result === 'delivered') {
    await deps.logoutDeliveries.deleteOne({ _id: doc._id });
    countLogoutDelivery('delivered');
    return;
  }
  if (outcome.result === 'rejected' || attempts >= config.BACKCHANNEL_LOGOUT_MAX_ATTEMPTS) {
    deps.logger.warn({ clientId: doc.clientId, attempts, reason: outcome.reason }, 'back-channel logout given up');
    return giveUp(deps, doc._id, attempts, outcome.reason);
  }
  const next = new Date(Date.now() + retryDelayMs(config.BACKCHANNEL_LOGOUT_RETRY_SECONDS, attempts));
  await deps.logoutDeliveries.updateOne(
    { _id: doc._id },
    { $set: { attempts, nextAttemptAt: next, lastError: outcome.reason } },
  );
  countLogoutDelivery('retried');
}

/** Attempts every due delivery it can claim, BATCH at a time; resolves when none is due. */
async function deliverDue(deps: DeliveryDeps): Promise<void> {
  for (;;) {
    const claimed = (await Promise.all(Array.from({ length: BATCH }, () => claim(deps)))).filter((doc) => doc !== null);
    if (!claimed.length) return;
    await Promise.all(
      claimed.map((doc) =>
        attempt(deps, doc).catch((err: unknown) =>
          deps.logger.error({ err, clientId: doc.clientId }, 'back-channel logout attempt failed'),
        ),
      ),
    );
  }
}

/**
 * The delivery loop of one replica: every second, the due deliveries. Every replica runs one; the
 * claims keep them from sending the same attempt. `stop()` waits for the attempts under way.
 */
export function startLogoutDelivery(deps: DeliveryDeps): { stop(): Promise<void> } {
  let running = true;
  let wake: (() => void) | undefined;
  const loop = (async () => {
    while (running) {
      await deliverDue(deps).catch((err: unknown) => deps.logger.error({ err }, 'back-channel logout delivery loop'));
      if (!running) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, POLL_MS);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  })();
  return {
    async stop() {
      running = false;
      wake?.();
      await loop;
    },
  };
}
