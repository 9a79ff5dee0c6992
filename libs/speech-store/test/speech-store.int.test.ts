import {
  DEFAULT_PLANS,
  createClonedVoice,
  createDictionary,
  deleteClonedVoice,
  editClonedVoice,
  ensureSubscription,
  listHistory,
  recordHistory,
  releaseStaleReservations,
  reserveCharacters,
  resolveVoice,
  settleCharacters,
  getHistoryAudio,
  deleteHistoryItem,
  nextMonthStartUnix,
  peekSubscription,
  newId,
  storeSampleFiles,
  type SpeechStore,
} from '@platform/speech-store';
import { SpeechError } from '@platform/errors';
import { NEUTRAL_PARAMS } from '@platform/voice-analysis';
import { toneWav } from '../../../tests/voices/audio';
import { testStore } from '../../../tests/voices/helpers';

const PREMADE = [
  {
    voiceId: 'premade1',
    name: 'Rachel',
    description: null,
    labels: { gender: 'female' },
    engineParams: { ...NEUTRAL_PARAMS, variant: 'f3' },
  },
];

let store: SpeechStore;
let close: () => Promise<void>;
let clock = Date.UTC(2030, 0, 15, 12);

beforeAll(async () => {
  ({ store, close } = await testStore({
    premade: PREMADE,
    plans: { ...DEFAULT_PLANS, free: { ...DEFAULT_PLANS.free, character_limit: 1000 } },
    now: () => clock,
  }));
});
afterAll(async () => close());

describe('character reservations', () => {
  it('never exceeds the limit with 50 concurrent reservations near it', async () => {
    const account = 'acct-concurrency';
    const sub = await ensureSubscription(store, account, 'free');
    expect(sub.characterCount).toBe(0);
    // 50 requests of 30 characters against a limit of 1000: exactly 33 fit.
    const results = await Promise.allSettled(
      Array.from({ length: 50 }, (_, i) =>
        reserveCharacters(store, { accountId: account, plan: 'free', jobId: `job-${i}`, characters: 30 }),
      ),
    );
    const ok = results.filter((r) => r.status === 'fulfilled');
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(ok).toHaveLength(33);
    expect(refused).toHaveLength(17);
    for (const r of refused) {
      expect(r.reason).toBeInstanceOf(SpeechError);
      expect((r.reason as SpeechError).status).toBe('character_limit_exceeded');
      expect((r.reason as SpeechError).httpStatus).toBe(401);
    }
    const after = await ensureSubscription(store, account, 'free');
    expect(after.characterCount).toBe(990);
    expect(after.pending).toHaveLength(33);
  });

  it("never passes the plan's dictionary limit with 25 creations at once", async () => {
    const account = 'acct-dictionary-race';
    const limit = DEFAULT_PLANS.free.pronunciation_dictionary_limit;
    const results = await Promise.allSettled(
      Array.from({ length: 25 }, (_, i) =>
        createDictionary(store, { accountId: account, plan: 'free', name: `d${i}`, description: null, rules: [] }),
      ),
    );
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(limit);
    expect(refused).toHaveLength(25 - limit);
    for (const r of refused) expect((r.reason as SpeechError).status).toBe('quota_exceeded');
    expect(await store.models.Dictionary.countDocuments({ accountId: account })).toBe(limit);
    expect(await store.models.DictionaryVersion.countDocuments({ accountId: account })).toBe(limit);
  });

  it('settles once, refunding unused characters, and failed jobs give everything back', async () => {
    const account = 'acct-settle';
    await reserveCharacters(store, { accountId: account, plan: 'free', jobId: 'a', characters: 100 });
    await reserveCharacters(store, { accountId: account, plan: 'free', jobId: 'b', characters: 200 });
    // Reserving the same job again is idempotent.
    await reserveCharacters(store, { accountId: account, plan: 'free', jobId: 'a', characters: 100 });
    expect((await ensureSubscription(store, account, 'free')).characterCount).toBe(300);
    expect(await settleCharacters(store, { accountId: account, jobId: 'a', usedCharacters: 60 })).toEqual({
      refunded: 40,
      settled: true,
    });
    expect(await settleCharacters(store, { accountId: account, jobId: 'a', usedCharacters: 0 })).toEqual({
      refunded: 0,
      settled: false,
    });
    // Failed generation: used 0.
    expect(await settleCharacters(store, { accountId: account, jobId: 'b', usedCharacters: 0 })).toEqual({
      refunded: 200,
      settled: true,
    });
    const sub = await ensureSubscription(store, account, 'free');
    expect(sub.characterCount).toBe(60);
    expect(sub.pending).toHaveLength(0);
  });

  it('concurrent settlements of one job refund once', async () => {
    const account = 'acct-settle-race';
    await reserveCharacters(store, { accountId: account, plan: 'free', jobId: 'x', characters: 500 });
    const results = await Promise.all(
      Array.from({ length: 10 }, () => settleCharacters(store, { accountId: account, jobId: 'x', usedCharacters: 0 })),
    );
    expect(results.filter((r) => r.settled)).toHaveLength(1);
    expect((await ensureSubscription(store, account, 'free')).characterCount).toBe(0);
  });

  it('releases reservations a dead worker never settled', async () => {
    const account = 'acct-stale';
    await reserveCharacters(store, { accountId: account, plan: 'free', jobId: 'old', characters: 70 });
    clock += 10 * 60_000;
    await reserveCharacters(store, { accountId: account, plan: 'free', jobId: 'new', characters: 30 });
    expect(await releaseStaleReservations(store, 5 * 60_000)).toBeGreaterThanOrEqual(1);
    const sub = await ensureSubscription(store, account, 'free');
    expect(sub.characterCount).toBe(30);
    expect(sub.pending.map((p) => p.jobId)).toEqual(['new']);
  });

  it('a released reservation whose job the worker recorded complete leaves the item failed, without audio: complete exactly when charged', async () => {
    // The gateway died while relaying (its client got part of the audio) and never settled; the worker finished the job.
    const account = 'acct-stale-complete';
    await reserveCharacters(store, {
      accountId: account,
      plan: 'free',
      jobId: 'relayed-by-dead-gateway',
      characters: 5,
    });
    const audio = Buffer.from('ID3-complete-audio');
    await recordHistory(store, {
      accountId: account,
      jobId: 'relayed-by-dead-gateway',
      historyItemId: 'relayedbydeadgateway',
      voiceId: 'premade1',
      voiceName: 'Rachel',
      text: 'hello',
      characterCount: 5,
      contentType: 'audio/mpeg',
      state: 'complete',
      settings: { stability: 0.5, similarity_boost: 0.75 },
      audio,
    });
    clock += 10 * 60_000;
    expect(await releaseStaleReservations(store, 5 * 60_000)).toBeGreaterThanOrEqual(1);
    expect((await ensureSubscription(store, account, 'free')).characterCount).toBe(0);
    const [item] = (await listHistory(store, { accountId: account, pageSize: 10 })).items;
    expect(item).toMatchObject({ _id: 'relayedbydeadgateway', state: 'failed' });
    expect(await getHistoryAudio(store, account, 'relayedbydeadgateway')).toBeNull();
  });

  it('resets the count monthly and follows the plan of the identity', async () => {
    const account = 'acct-reset';
    await reserveCharacters(store, { accountId: account, plan: 'free', jobId: 'm1', characters: 900 });
    await expect(
      reserveCharacters(store, { accountId: account, plan: 'free', jobId: 'm2', characters: 200 }),
    ).rejects.toMatchObject({
      status: 'character_limit_exceeded',
      // Which limit, and when it frees: the start of the next period.
      message: expect.stringMatching(
        /left this period \(monthly character limit\)\. The count resets at \d{4}-\d\d-01T00:00:00\.000Z\.$/,
      ),
    });
    // Upgrading lifts the limit at once.
    await reserveCharacters(store, { accountId: account, plan: 'starter', jobId: 'm2', characters: 200 });
    const before = await ensureSubscription(store, account, 'starter');
    expect(before.characterCount).toBe(1100);
    expect(before.tier).toBe('starter');
    clock = before.nextResetUnix * 1000 + 1000;
    const after = await ensureSubscription(store, account, 'starter');
    expect(after.characterCount).toBe(0);
    expect(after.nextResetUnix).toBe(nextMonthStartUnix(clock));
    expect(after.nextResetUnix).toBeGreaterThan(before.nextResetUnix);
    // A reservation of the old period settles to nothing: the count already restarted.
    expect(await settleCharacters(store, { accountId: account, jobId: 'm1', usedCharacters: 0 })).toEqual({
      refunded: 0,
      settled: false,
    });
    expect((await ensureSubscription(store, account, 'starter')).characterCount).toBe(0);
  });
});

describe('resolveVoice', () => {
  it('resolves premade voices and 404s unknown ones', async () => {
    const resolved = await resolveVoice(store, {
      accountId: 'acct-r',
      voiceId: 'premade1',
      settings: { stability: 0.2 },
    });
    expect(resolved).toMatchObject({
      voiceId: 'premade1',
      name: 'Rachel',
      category: 'premade',
      engineParams: { variant: 'f3' },
    });
    expect(resolved.settings).toEqual({ stability: 0.2, similarity_boost: 0.75, style: 0, use_speaker_boost: true });
    await expect(resolveVoice(store, { accountId: 'acct-r', voiceId: 'nope' })).rejects.toMatchObject({
      status: 'voice_not_found',
      httpStatus: 404,
    });
  });
});

describe('history', () => {
  const base = {
    accountId: 'acct-h',
    voiceId: 'premade1',
    voiceName: 'Rachel',
    text: 'hello',
    characterCount: 5,
    contentType: 'audio/mpeg',
    settings: { stability: 0.5, similarity_boost: 0.75 },
  };

  it('records each job exactly once, even when recorded concurrently', async () => {
    const audio = Buffer.from('ID3-fake-mpeg-bytes');
    const docs = await Promise.all(
      Array.from({ length: 8 }, () => recordHistory(store, { ...base, jobId: 'job-once', state: 'complete', audio })),
    );
    expect(new Set(docs.map((d) => d._id)).size).toBe(1);
    const page = await listHistory(store, { accountId: 'acct-h', pageSize: 10 });
    expect(page.items).toHaveLength(1);
    const got = await getHistoryAudio(store, 'acct-h', docs[0]!._id);
    expect(got?.bytes.equals(audio)).toBe(true);
    // Only one audio file was kept.
    expect(await store.connection.db!.collection('history_audio.files').countDocuments({})).toBe(1);
    expect(await deleteHistoryItem(store, 'acct-h', docs[0]!._id)).toBe(true);
    expect(await deleteHistoryItem(store, 'acct-h', docs[0]!._id)).toBe(false);
    expect(await store.connection.db!.collection('history_audio.files').countDocuments({})).toBe(0);
  });

  describe('two records of one job (the gateway gives up, the worker ends it)', () => {
    const audioFiles = (id: string) =>
      store.connection.db!.collection('history_audio.files').countDocuments({ filename: id });
    const items = (jobId: string) => store.models.History.find({ jobId }).lean();
    // The gateway's record of a generation whose client did not get the whole audio carries none.
    const gateway = (jobId: string, state: 'failed' | 'cancelled') => ({
      ...base,
      accountId: 'acct-race',
      jobId,
      historyItemId: jobId,
      state,
    });
    const worker = (jobId: string, state: 'complete' | 'failed' | 'cancelled', audio: Buffer) => ({
      ...base,
      accountId: 'acct-race',
      jobId,
      historyItemId: jobId,
      state,
      audio,
    });
    const orders = ['gateway first', 'worker first', 'at once'] as const;
    type Record = Parameters<typeof recordHistory>[1];
    async function inOrder(order: (typeof orders)[number], g: Record, w: Record) {
      if (order === 'gateway first') return [await recordHistory(store, g), await recordHistory(store, w)];
      if (order === 'worker first') return [await recordHistory(store, w), await recordHistory(store, g)];
      return Promise.all([recordHistory(store, g), recordHistory(store, w)]);
    }

    it.each(orders)(
      'the gateway failed it, the worker completed it (%s): one failed item, no audio kept',
      async (order) => {
        for (let round = 0; round < 5; round++) {
          const jobId = `race-fc-${order.replace(/ /g, '-')}-${round}`;
          const docs = await inOrder(
            order,
            gateway(jobId, 'failed'),
            worker(jobId, 'complete', Buffer.from('the whole audio')),
          );
          const stored = await items(jobId);
          expect(stored).toHaveLength(1);
          expect(stored[0]).toMatchObject({ _id: jobId, state: 'failed', audioFileId: null, audioBytes: 0 });
          // Both callers were answered with the item; the later one with the item as it ended.
          expect(docs.map((d) => d._id)).toEqual([jobId, jobId]);
          expect(await getHistoryAudio(store, 'acct-race', jobId)).toBeNull();
          expect(await audioFiles(jobId)).toBe(0);
        }
      },
    );

    it.each(orders)(
      'the gateway cancelled it, the worker stopped it with partial audio (%s): one cancelled item with that audio',
      async (order) => {
        for (let round = 0; round < 5; round++) {
          const jobId = `race-cc-${order.replace(/ /g, '-')}-${round}`;
          const partial = Buffer.from(`partial audio ${round}`);
          await inOrder(order, gateway(jobId, 'cancelled'), worker(jobId, 'cancelled', partial));
          const stored = await items(jobId);
          expect(stored).toHaveLength(1);
          expect(stored[0]).toMatchObject({ _id: jobId, state: 'cancelled', audioBytes: partial.length });
          expect((await getHistoryAudio(store, 'acct-race', jobId))?.bytes.equals(partial)).toBe(true);
          expect(await audioFiles(jobId)).toBe(1);
        }
      },
    );

    it('the worker failed it with partial audio, the gateway failed it too: the first state and the audio stay', async () => {
      const partial = Buffer.from('partial');
      await recordHistory(store, worker('race-ff', 'failed', partial));
      const doc = await recordHistory(store, gateway('race-ff', 'cancelled'));
      expect(doc).toMatchObject({ state: 'failed', audioBytes: partial.length });
      expect((await getHistoryAudio(store, 'acct-race', 'race-ff'))?.bytes.equals(partial)).toBe(true);
    });

    it('a complete item stays when recorded again complete, and a second audio is not kept', async () => {
      await recordHistory(store, worker('race-kk', 'complete', Buffer.from('first')));
      const doc = await recordHistory(store, worker('race-kk', 'complete', Buffer.from('second')));
      expect(doc.state).toBe('complete');
      expect((await getHistoryAudio(store, 'acct-race', 'race-kk'))?.bytes.toString()).toBe('first');
      expect(await audioFiles('race-kk')).toBe(1);
    });
  });

  it('pages newest first with a cursor, filters by voice, and hides other accounts', async () => {
    for (let i = 0; i < 7; i++) {
      clock += 1000;
      await recordHistory(store, {
        ...base,
        accountId: 'acct-p',
        jobId: `p-${i}`,
        text: `t${i}`,
        voiceId: i % 2 ? 'premade1' : 'v2',
        state: i === 6 ? 'failed' : 'complete',
        audio: i === 6 ? undefined : Buffer.from([i]),
      });
    }
    const first = await listHistory(store, { accountId: 'acct-p', pageSize: 3 });
    expect(first.items.map((d) => d.text)).toEqual(['t6', 't5', 't4']);
    expect(first.hasMore).toBe(true);
    const second = await listHistory(store, { accountId: 'acct-p', pageSize: 3, startAfterId: first.lastId! });
    expect(second.items.map((d) => d.text)).toEqual(['t3', 't2', 't1']);
    const third = await listHistory(store, { accountId: 'acct-p', pageSize: 3, startAfterId: second.lastId! });
    expect(third.items.map((d) => d.text)).toEqual(['t0']);
    expect(third.hasMore).toBe(false);
    const byVoice = await listHistory(store, { accountId: 'acct-p', pageSize: 10, voiceId: 'premade1' });
    expect(byVoice.items.map((d) => d.text)).toEqual(['t5', 't3', 't1']);
    expect((await listHistory(store, { accountId: 'acct-other', pageSize: 10 })).items).toHaveLength(0);
    await expect(
      listHistory(store, { accountId: 'acct-other', pageSize: 3, startAfterId: first.lastId! }),
    ).rejects.toThrow(/start_after_history_item_id/);
    expect(await getHistoryAudio(store, 'acct-p', first.items[0]!._id)).toBeNull();
  });
});

// Against the real mongod: every rule below is decided by the server (a guarded update, or a
// transaction), so these counts are exact, not "at most".
describe('concurrency on one account', () => {
  const refusedWith = (results: PromiseSettledResult<unknown>[], status: string, httpStatus: number) => {
    for (const r of results) {
      if (r.status === 'fulfilled') continue;
      expect(r.reason).toBeInstanceOf(SpeechError);
      expect(r.reason).toMatchObject({ status, httpStatus });
    }
  };

  it('50 concurrent first reservations of a new account admit exactly what fits, on one subscription document', async () => {
    const account = 'acct-fresh-race';
    expect(await peekSubscription(store, account)).toBeNull();
    // 50 × 30 against a limit of 1000: exactly 33 fit, and the account is created by whichever lands first.
    const results = await Promise.allSettled(
      Array.from({ length: 50 }, (_, i) =>
        reserveCharacters(store, { accountId: account, plan: 'free', jobId: `fresh-${i}`, characters: 30 }),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(33);
    refusedWith(results, 'character_limit_exceeded', 401);
    const sub = await ensureSubscription(store, account, 'free');
    expect(sub.characterCount).toBe(990);
    expect(sub.pending).toHaveLength(33);
    expect(await store.models.Subscription.countDocuments({ _id: account })).toBe(1);
  });

  it('reservations and settlements interleaved: the count ends at exactly what was used', async () => {
    const account = 'acct-interleaved';
    // 60 jobs of 100 characters (limit 1000), each settled as soon as it is reserved, using 25.
    const results = await Promise.allSettled(
      Array.from({ length: 60 }, async (_, i) => {
        const reservation = await reserveCharacters(store, {
          accountId: account,
          plan: 'free',
          jobId: `mix-${i}`,
          characters: 100,
        });
        return settleCharacters(store, { accountId: account, jobId: reservation.jobId, usedCharacters: 25 });
      }),
    );
    refusedWith(results, 'character_limit_exceeded', 401);
    const settled = results.filter(
      (r): r is PromiseFulfilledResult<{ refunded: number; settled: boolean }> => r.status === 'fulfilled',
    );
    expect(settled.length).toBeGreaterThanOrEqual(10);
    for (const r of settled) expect(r.value).toEqual({ refunded: 75, settled: true });
    const sub = await ensureSubscription(store, account, 'free');
    expect(sub.pending).toHaveLength(0);
    expect(sub.characterCount).toBe(25 * settled.length);
  });

  describe('voices and the voice counters (transactions)', () => {
    // The free plan here: voice_limit 3, max_voice_add_edits 10.
    // Its sample stored first, as the gateway does (before the analysis job) before the voice is created.
    const newVoice = async (accountId: string, name = 'clone') => {
      const voiceId = newId();
      return {
        voiceId,
        accountId,
        plan: 'free',
        name,
        description: null,
        labels: {},
        samples: await storeSampleFiles(store.samples, voiceId, [
          { fileName: 's.wav', mimeType: 'audio/wav', bytes: toneWav(0.1, 220) },
        ]),
        analysis: {},
        engineParams: NEUTRAL_PARAMS,
      };
    };
    /** Sample files no voice refers to (left behind by a refused or failed change). */
    const strayFiles = async () => {
      const referenced = new Set(
        (await store.models.Voice.find({}, { samples: 1 }).lean()).flatMap((v) =>
          v.samples.map((s) => String(s.file_id)),
        ),
      );
      const files = await store.connection
        .db!.collection('voice_samples.files')
        .find({}, { projection: { _id: 1 } })
        .toArray();
      return files.filter((f) => !referenced.has(String(f._id))).length;
    };
    const counters = async (accountId: string) => {
      const sub = await peekSubscription(store, accountId);
      return {
        voiceCount: sub?.voiceCount,
        voiceAddEditCounter: sub?.voiceAddEditCounter,
        stored: await store.models.Voice.countDocuments({ accountId }),
      };
    };

    it('20 concurrent adds beyond the voice limit create exactly the allowed number, the counter equal to the voices stored', async () => {
      const account = 'acct-voice-race';
      const results = await Promise.allSettled(
        Array.from({ length: 20 }, async (_, i) => createClonedVoice(store, await newVoice(account, `v${i}`))),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
      refusedWith(results, 'quota_exceeded', 429);
      expect(await counters(account)).toEqual({ voiceCount: 3, voiceAddEditCounter: 3, stored: 3 });
      expect(await strayFiles()).toBe(0);
    });

    it('concurrent deletes of one voice free its slot once', async () => {
      const account = 'acct-delete-race';
      const voice = await createClonedVoice(store, await newVoice(account));
      await createClonedVoice(store, await newVoice(account));
      const results = await Promise.all(Array.from({ length: 10 }, () => deleteClonedVoice(store, account, voice._id)));
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(await counters(account)).toEqual({ voiceCount: 1, voiceAddEditCounter: 2, stored: 1 });
      expect(await strayFiles()).toBe(0);
    });

    it('concurrent sample edits: only the edits that happened are counted, and never past the allowance', async () => {
      const account = 'acct-edit-race';
      const voices = await Promise.all([
        createClonedVoice(store, await newVoice(account, 'a')),
        createClonedVoice(store, await newVoice(account, 'b')),
      ]);
      const edit = async (voiceId: string) =>
        editClonedVoice(store, {
          accountId: account,
          plan: 'free',
          voiceId,
          samples: {
            keep: [],
            add: await storeSampleFiles(store.samples, voiceId, [
              { fileName: 'x.wav', mimeType: 'audio/wav', bytes: toneWav(0.1, 330) },
            ]),
            analysis: {},
            engineParams: NEUTRAL_PARAMS,
          },
        });
      // Edits of one voice that start from the same version: one swaps it, the others get 409 and are not counted.
      const results = await Promise.allSettled(Array.from({ length: 16 }, (_, i) => edit(voices[i % 2]!._id)));
      const done = results.filter((r) => r.status === 'fulfilled').length;
      expect(done).toBeGreaterThanOrEqual(2);
      for (const r of results) {
        if (r.status === 'rejected') expect([409, 429]).toContain((r.reason as SpeechError).httpStatus);
      }
      expect(await counters(account)).toEqual({ voiceCount: 2, voiceAddEditCounter: 2 + done, stored: 2 });
      // One by one up to the allowance, then refused.
      for (let used = 2 + done; used < 10; used++) await edit(voices[0]!._id);
      await expect(edit(voices[1]!._id)).rejects.toMatchObject({ status: 'quota_exceeded', httpStatus: 429 });
      expect(await counters(account)).toEqual({ voiceCount: 2, voiceAddEditCounter: 10, stored: 2 });
      expect(await strayFiles()).toBe(0);
    });

    it('a voice that fails to be stored changes no counter and leaves no sample behind', async () => {
      const account = 'acct-voice-fails';
      await createClonedVoice(store, await newVoice(account));
      // An empty name fails the voice schema's validation inside the transaction, after the claim.
      await expect(createClonedVoice(store, await newVoice(account, ''))).rejects.toThrow(/name/);
      expect(await counters(account)).toEqual({ voiceCount: 1, voiceAddEditCounter: 1, stored: 1 });
      expect(await strayFiles()).toBe(0);
    });
  });
});
