import {
  listHistory,
  listVoices,
  recordHistory,
  searchVoices,
  type SpeechStore,
  type VoiceSearchQuery,
} from '@platform/speech-store';
import { withProfiler } from '@platform/testing';
import { NEUTRAL_PARAMS } from '@platform/voice-analysis';
import { testStore } from '../../../tests/voices/helpers';

/**
 * Every list and search query of the store is answered from an index: the database profiler
 * (level 2, this test's own database) records each query's plan, and none may scan the collection
 * or sort in memory. Other accounts' data is there too, so a plan that filters by account late
 * would read it.
 */
const PREMADE = [
  {
    voiceId: 'premade1',
    name: 'Rachel',
    description: null,
    labels: { gender: 'female' },
    engineParams: { ...NEUTRAL_PARAMS, variant: 'f3' },
  },
];
const ACCOUNT = 'acct-indexed';

let store: SpeechStore;
let close: () => Promise<void>;

interface ProfileEntry {
  ns: string;
  op: string;
  command: Record<string, unknown>;
  planSummary?: string;
  hasSortStage?: boolean;
  docsExamined?: number;
  nreturned?: number;
}

async function profiled(run: () => Promise<unknown>): Promise<ProfileEntry[]> {
  const db = store.connection.db!;
  await withProfiler(db, run);
  const entries = await db
    .collection<ProfileEntry>('system.profile')
    .find({ ns: { $in: [`${db.databaseName}.voices`, `${db.databaseName}.history_items`] } })
    .toArray();
  return entries.filter((e) => e.op === 'query' || e.op === 'command');
}

/**
 * Each query used an index and did not sort in memory. `exact`: the index alone selected the
 * documents (none read only to be filtered out), for queries whose every condition is indexable.
 */
function expectIndexed(entries: ProfileEntry[], exact = false): void {
  expect(entries.length).toBeGreaterThan(0);
  for (const e of entries) {
    const what = JSON.stringify(e.command).slice(0, 300);
    expect([what, e.planSummary]).toEqual([what, expect.stringMatching(/^(IXSCAN|IDHACK|EXPRESS_IXSCAN|COUNT_SCAN)/)]);
    expect([what, e.hasSortStage ?? false]).toEqual([what, false]);
    if (exact) expect([what, e.docsExamined ?? 0]).toEqual([what, e.nreturned ?? 0]);
  }
}

beforeAll(async () => {
  ({ store, close } = await testStore({ premade: PREMADE }));
  for (const account of [ACCOUNT, 'acct-other']) {
    for (let i = 0; i < 5; i += 1) {
      await store.models.Voice.create({
        _id: `${account.slice(5, 9)}voice${i}`,
        accountId: account,
        name: `Voice ${i}`,
        description: null,
        labels: { gender: i % 2 ? 'male' : 'female' },
        samples: [],
        analysis: {},
        engineParams: NEUTRAL_PARAMS,
      });
      await recordHistory(store, {
        accountId: account,
        jobId: `${account}-job${i}`,
        voiceId: i % 2 ? 'premade1' : 'other',
        voiceName: 'Rachel',
        modelId: i % 2 ? 'model-a' : 'model-b',
        text: `item ${i}`,
        characterCount: 6,
        contentType: 'audio/mpeg',
        state: 'complete',
        settings: { stability: 0.5, similarity_boost: 0.75 },
        audio: Buffer.from('x'),
      });
    }
  }
});
afterAll(async () => close());

describe('indexed queries', () => {
  it('voices: the list, and the search in every sort and direction, with a cursor and with filters', async () => {
    expectIndexed(await profiled(() => listVoices(store, ACCOUNT)), true);
    for (const sort of ['created_at_unix', 'name'] as const) {
      for (const direction of ['asc', 'desc'] as const) {
        const base: VoiceSearchQuery = {
          accountId: ACCOUNT,
          pageSize: 2,
          categories: ['premade', 'cloned'],
          sort,
          direction,
        };
        const entries = await profiled(async () => {
          const first = await searchVoices(store, base);
          expect(first.next).not.toBeNull();
          await searchVoices(store, { ...base, after: first.next! });
          await searchVoices(store, {
            ...base,
            search: 'voice 3',
            labels: { gender: ['male'] },
            voiceIds: ['ndexvoice1', 'ndexvoice3'],
          });
        });
        expectIndexed(entries);
      }
    }
  });

  it('history: the list, by voice, and with a cursor', async () => {
    let lastId = '';
    expectIndexed(
      await profiled(async () => {
        lastId = (await listHistory(store, { accountId: ACCOUNT, pageSize: 2 })).lastId!;
        await listHistory(store, { accountId: ACCOUNT, pageSize: 2, voiceId: 'premade1' });
      }),
      true,
    );
    expectIndexed(
      await profiled(async () => {
        await listHistory(store, { accountId: ACCOUNT, pageSize: 2, modelId: 'model-a' });
        await listHistory(store, {
          accountId: ACCOUNT,
          pageSize: 2,
          direction: 'asc',
          dateAfterMs: 0,
          dateBeforeMs: Date.now() + 60_000,
        });
      }),
      true,
    );
    expectIndexed(
      await profiled(() => listHistory(store, { accountId: ACCOUNT, pageSize: 2, search: 'item', direction: 'asc' })),
    );
    // After a cursor the two branches of the keyset condition may each read a document ahead.
    expectIndexed(await profiled(() => listHistory(store, { accountId: ACCOUNT, pageSize: 2, startAfterId: lastId })));
  });
});
