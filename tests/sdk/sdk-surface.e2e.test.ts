import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { DEFAULT_MODEL_ID, PREMADE_VOICES } from '@platform/speech-engine';
import { eventually } from '@platform/testing';
import { mp3DurationSeconds, parseMp3, pcmSamples, readAll, rms } from '../speech/support/audio';
import { espeakWav, REFERENCE_TEXT } from '../voices/audio';
import { audioBytes, PYTHON_SDK_VERSION, stepResult, type PythonAudio, type PythonStep } from './python-sdk';
import { startSdkPlatform, type SdkCaller, type SdkPlatform } from './sdk-platform';

/**
 * Every call of the official SDKs in the speech API's surface, unchanged, through the real platform
 * (auth, content, gateway and a synthesis worker as processes): the JS SDK
 * (`@elevenlabs/elevenlabs-js`) in this process, the Python SDK (`elevenlabs` from PyPI, pinned in
 * tests/sdk/requirements.txt, in the virtual environment `.stack/sdk-venv` that the harness creates)
 * through the scripts in tests/sdk/python/. Each test asserts the decoded audio or the returned
 * objects. The calls outside the surface are listed in docs/speech.md ("Official SDKs").
 */
const exec = promisify(execFile);
const RACHEL = '21m00Tcm4TlvDq8ikWAM';
const TEXT = 'The official clients work unchanged.';

let sdk: SdkPlatform;

beforeAll(async () => {
  sdk = await startSdkPlatform({ free: { character_limit: 100_000, voice_limit: 10, max_voice_add_edits: 40 } });
}, 600_000);

afterAll(async () => {
  await sdk?.stop();
}, 30_000);

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const wavFile = (name: string, pitch: number) =>
  new File([new Uint8Array(espeakWav(REFERENCE_TEXT, 'en+m3', pitch))], name, { type: 'audio/wav' });

/** Binary order (as MongoDB compares strings): equal to JS's for the ASCII ids and names here. */
const byBinary = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/** Seconds of speech in an MP3 file, after checking that it is a sequence of whole MPEG frames. */
function mp3Seconds(bytes: Buffer): number {
  const frames = parseMp3(bytes);
  expect(frames.length).toBeGreaterThan(10);
  return mp3DurationSeconds(frames);
}

/** 16 kHz 16-bit PCM: its length in seconds, after checking it is not silence. */
function pcm16kSeconds(bytes: Buffer): number {
  expect(bytes.length % 2).toBe(0);
  expect(rms(pcmSamples(bytes))).toBeGreaterThan(300);
  return bytes.length / 2 / 16_000;
}

/** The entries of a ZIP archive read by Info-ZIP's unzip (which checks every CRC-32 with -t). */
async function unzipEntries(zip: Buffer): Promise<{ name: string; method: string; bytes: Buffer }[]> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sdk-zip-'));
  try {
    const file = path.join(dir, 'history.zip');
    writeFileSync(file, zip);
    await exec('unzip', ['-tq', file]);
    const listing = (await exec('zipinfo', ['-l', file])).stdout.split('\n').filter((l) => /^-/.test(l));
    return await Promise.all(
      listing.map(async (line) => {
        const fields = line.trim().split(/\s+/);
        const name = fields.at(-1)!;
        const bytes = (await exec('unzip', ['-p', file, name], { encoding: 'buffer', maxBuffer: 64 * 1024 * 1024 }))
          .stdout;
        return { name, method: fields[6]!, bytes };
      }),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('the Python SDK harness', () => {
  it(`runs the pinned elevenlabs ${PYTHON_SDK_VERSION} from .stack/sdk-venv`, async () => {
    const { stdout } = await exec(path.resolve(__dirname, '../../.stack/sdk-venv/bin/python'), [
      '-c',
      'import elevenlabs, sys; print(elevenlabs.__file__); print(sys.prefix)',
    ]);
    expect(stdout).toContain('.stack/sdk-venv/lib/');
    expect(PYTHON_SDK_VERSION).toMatch(/^\d+\.\d+\.\d+$/);
  });
});

describe('voices.search (GET /v2/voices)', () => {
  let me: SdkCaller;
  /** The clones this account made, oldest first. */
  const clones: { voiceId: string; name: string; labels: Record<string, string> }[] = [];
  const premadeIds = PREMADE_VOICES.map((v) => v.voice_id);

  beforeAll(async () => {
    me = await sdk.newCaller('SDK search');
    const specs: { name: string; labels: Record<string, string> }[] = [
      { name: 'Zeta narrator', labels: { gender: 'female', accent: 'british', language: 'de' } },
      { name: 'Alpha helper', labels: { gender: 'male', use_case: 'conversational' } },
      { name: 'Mid voice', labels: {} },
    ];
    for (const [i, spec] of specs.entries()) {
      const { voiceId } = await me.client.voices.ivc.create({
        name: spec.name,
        labels: spec.labels,
        files: [wavFile(`ref${i}.wav`, 30 + 10 * i)],
      });
      clones.push({ voiceId, ...spec });
    }
  }, 180_000);

  /** Newest first (the default order): the clones newest first, then the premade voices (no creation time) by id, descending. */
  const newestFirst = () => [...clones.map((c) => c.voiceId).reverse(), ...[...premadeIds].sort(byBinary).reverse()];

  it('JS: the first page in the default order (created_at_unix, descending), with total_count and a next_page_token', async () => {
    const page = await me.client.voices.search({ pageSize: 4 });
    expect(page.voices.map((v) => v.voiceId)).toEqual(newestFirst().slice(0, 4));
    expect(page.voices[0]).toMatchObject({ voiceId: clones[2]!.voiceId, name: 'Mid voice', category: 'cloned' });
    expect(page.totalCount).toBe(premadeIds.length + 3);
    expect(page.hasMore).toBe(true);
    expect(page.nextPageToken).toEqual(expect.any(String));
  });

  it('JS: next_page_token walks every voice once, in order, and the last page has none', async () => {
    const seen: string[] = [];
    let token: string | undefined;
    for (let pages = 0; pages < 50; pages += 1) {
      const page = await me.client.voices.search({ pageSize: 2, ...(token ? { nextPageToken: token } : {}) });
      seen.push(...page.voices.map((v) => v.voiceId));
      expect(page.voices.length).toBeLessThanOrEqual(2);
      if (!page.hasMore) {
        expect(page.nextPageToken ?? null).toBeNull();
        break;
      }
      token = page.nextPageToken;
    }
    expect(seen).toEqual(newestFirst());
  });

  it('JS: a voice deleted between pages is neither repeated nor makes another one skipped (keyset paging)', async () => {
    const other = await sdk.newCaller('SDK search paging');
    const made: string[] = [];
    for (const [i, name] of ['P one', 'P two', 'P three'].entries())
      made.push((await other.client.voices.ivc.create({ name, files: [wavFile(`p${i}.wav`, 40)] })).voiceId);
    const first = await other.client.voices.search({ pageSize: 1, voiceType: 'personal' });
    expect(first.voices.map((v) => v.voiceId)).toEqual([made[2]]);
    await other.client.voices.delete(made[1]!);
    const second = await other.client.voices.search({
      pageSize: 1,
      voiceType: 'personal',
      nextPageToken: first.nextPageToken!,
    });
    expect(second.voices.map((v) => v.voiceId)).toEqual([made[0]]);
    expect(second.hasMore).toBe(false);
    expect(second.totalCount).toBe(2);
  }, 120_000);

  it('JS: sort by name, both directions', async () => {
    const asc = await me.client.voices.search({ sort: 'name', sortDirection: 'asc', pageSize: 100 });
    const names = asc.voices.map((v) => v.name!);
    expect(names).toHaveLength(premadeIds.length + 3);
    expect(names).toEqual([...names].sort(byBinary));
    expect(names.indexOf('Alpha helper')).toBeLessThan(names.indexOf('Zeta narrator'));
    const desc = await me.client.voices.search({ sort: 'name', sortDirection: 'desc', pageSize: 100 });
    expect(desc.voices.map((v) => v.voiceId)).toEqual(asc.voices.map((v) => v.voiceId).reverse());
  });

  it('JS: search matches the name, the description and label values, case-insensitively', async () => {
    expect((await me.client.voices.search({ search: 'zETA' })).voices.map((v) => v.voiceId)).toEqual([
      clones[0]!.voiceId,
    ]);
    const british = await me.client.voices.search({ search: 'british', pageSize: 100 });
    const expected = PREMADE_VOICES.filter((v) =>
      [v.name, v.description ?? '', ...Object.values(v.labels)].some((t) => /british/i.test(t)),
    ).map((v) => v.voice_id);
    expect(expected.length).toBeGreaterThan(0);
    expect(british.voices.map((v) => v.voiceId).sort(byBinary)).toEqual(
      [clones[0]!.voiceId, ...expected].sort(byBinary),
    );
    expect(british.totalCount).toBe(expected.length + 1);
    expect((await me.client.voices.search({ search: 'no voice is called this' })).voices).toEqual([]);
  });

  it('JS: voice_type, category, label filters and voice_ids', async () => {
    const ids = async (request: Parameters<SdkCaller['client']['voices']['search']>[0]) =>
      (await me.client.voices.search({ pageSize: 100, ...request })).voices.map((v) => v.voiceId).sort(byBinary);
    const cloneIds = clones.map((c) => c.voiceId).sort(byBinary);
    expect(await ids({ voiceType: 'personal' })).toEqual(cloneIds);
    expect(await ids({ voiceType: 'non-default' })).toEqual(cloneIds);
    expect(await ids({ voiceType: 'default' })).toEqual([...premadeIds].sort(byBinary));
    expect(await ids({ voiceType: 'community' })).toEqual([]);
    expect(await ids({ category: 'cloned' })).toEqual(cloneIds);
    expect(await ids({ category: 'premade' })).toEqual([...premadeIds].sort(byBinary));
    expect(await ids({ category: 'professional' })).toEqual([]);
    const female = PREMADE_VOICES.filter((v) => v.labels.gender === 'female').map((v) => v.voice_id);
    expect(await ids({ gender: 'Female' })).toEqual([clones[0]!.voiceId, ...female].sort(byBinary));
    expect(await ids({ gender: 'female', voiceType: 'personal' })).toEqual([clones[0]!.voiceId]);
    expect(await ids({ useCases: ['conversational'], voiceType: 'personal' })).toEqual([clones[1]!.voiceId]);
    expect(await ids({ language: ['fr', 'de'], voiceType: 'personal' })).toEqual([clones[0]!.voiceId]);
    expect(await ids({ voiceIds: [RACHEL, clones[2]!.voiceId] })).toEqual([RACHEL, clones[2]!.voiceId].sort(byBinary));
  });

  it("JS: another account's search has none of these clones", async () => {
    const other = await sdk.newCaller('SDK search other');
    const page = await other.client.voices.search({ pageSize: 100 });
    expect(page.voices.map((v) => v.voiceId).sort(byBinary)).toEqual([...premadeIds].sort(byBinary));
    expect(page.totalCount).toBe(premadeIds.length);
  });

  it('malformed parameters are a 400 in the speech error shape', async () => {
    for (const query of [
      'page_size=0',
      'page_size=101',
      'sort=pitch',
      'sort_direction=up',
      'voice_type=friends',
      'next_page_token=bm90IGEgdG9rZW4',
      'include_total_count=maybe',
    ]) {
      const res = await fetch(`${sdk.platform.publicUrl}/v2/voices?${query}`, { headers: { 'xi-api-key': me.key } });
      expect([query, res.status, await res.json()]).toEqual([
        query,
        400,
        { detail: { status: 'bad_request', message: expect.any(String) } },
      ]);
    }
    // A token read in one order does not continue another.
    const { nextPageToken } = await me.client.voices.search({ pageSize: 1 });
    await expect(
      me.client.voices.search({ pageSize: 1, sort: 'name', nextPageToken: nextPageToken! }),
    ).rejects.toMatchObject({ statusCode: 400, body: { detail: { status: 'bad_request' } } });
    const anonymous = await fetch(`${sdk.platform.publicUrl}/v2/voices`);
    expect(anonymous.status).toBe(401);
  });

  it('/v2 is the speech API: a refused path and an unknown endpoint answer in the speech error shape', async () => {
    const nonCanonical = await fetch(`${sdk.platform.publicUrl}/v2//voices`, { headers: { 'xi-api-key': me.key } });
    expect([nonCanonical.status, await nonCanonical.json()]).toEqual([
      400,
      { detail: { status: 'bad_request', message: expect.any(String) } },
    ]);
    const unknown = await fetch(`${sdk.platform.publicUrl}/v2/history`, { headers: { 'xi-api-key': me.key } });
    expect([unknown.status, await unknown.json()]).toEqual([
      404,
      { detail: { status: expect.any(String), message: 'no such speech endpoint' } },
    ]);
  });

  it('Python: voices.search, the same pages and filters', async () => {
    const steps = await me.python('voices_search', {
      page_size: 3,
      queries: {
        first: { page_size: 4 },
        zeta: { search: 'zeta' },
        personal: { voice_type: 'personal', page_size: 100 },
        by_name: { sort: 'name', sort_direction: 'asc', page_size: 100 },
        female: { gender: 'female', voice_type: 'personal' },
      },
    });
    const pages = stepResult<
      { voice_ids: string[]; has_more: boolean; total_count: number; next_page_token: string | null }[]
    >(steps, 'all_pages');
    expect(pages.flatMap((p) => p.voice_ids)).toEqual(newestFirst());
    expect(pages.map((p) => p.has_more)).toEqual([...pages.slice(1).map(() => true), false]);
    expect(pages.at(-1)!.next_page_token).toBeNull();
    expect(steps.first).toMatchObject({ ok: true, type: 'GetVoicesV2Response' });
    expect(stepResult<{ voices: { voice_id: string }[]; total_count: number }>(steps, 'first')).toMatchObject({
      total_count: premadeIds.length + 3,
      has_more: true,
    });
    expect(stepResult<{ voices: { voice_id: string }[] }>(steps, 'first').voices.map((v) => v.voice_id)).toEqual(
      newestFirst().slice(0, 4),
    );
    expect(stepResult<{ voices: { voice_id: string; name: string }[] }>(steps, 'zeta').voices).toEqual([
      expect.objectContaining({ voice_id: clones[0]!.voiceId, name: 'Zeta narrator', labels: clones[0]!.labels }),
    ]);
    expect(stepResult<{ voices: { voice_id: string }[] }>(steps, 'personal').voices.map((v) => v.voice_id)).toEqual(
      clones.map((c) => c.voiceId).reverse(),
    );
    const names = stepResult<{ voices: { name: string }[] }>(steps, 'by_name').voices.map((v) => v.name);
    expect(names).toEqual([...names].sort(byBinary));
    expect(stepResult<{ voices: { voice_id: string }[] }>(steps, 'female').voices.map((v) => v.voice_id)).toEqual([
      clones[0]!.voiceId,
    ]);
  }, 120_000);
});

describe('history through both SDKs', () => {
  let me: SdkCaller;
  /** Three generations, newest first, with the bytes the client got. */
  const generated: { id: string; bytes: Buffer; text: string }[] = [];

  beforeAll(async () => {
    me = await sdk.newCaller('SDK history');
    for (const text of ['First item to download.', 'Second item to download.', 'Third item to download.']) {
      const { data, rawResponse } = await me.client.textToSpeech.convert(RACHEL, { text }).withRawResponse();
      generated.unshift({ id: rawResponse.headers.get('history-item-id')!, bytes: (await readAll(data)).bytes, text });
    }
    await eventually(
      async () =>
        (await me.client.history.list({ pageSize: 10 })).history.filter((h) => h.state === 'complete').length === 3,
      20_000,
    );
  }, 120_000);

  it('JS: history.download of one id is that item’s audio, byte for byte', async () => {
    const { data, rawResponse } = await me.client.history
      .download({ historyItemIds: [generated[1]!.id] })
      .withRawResponse();
    expect(rawResponse.headers.get('content-type')).toBe('audio/mpeg');
    const bytes = (await readAll(data)).bytes;
    expect(bytes.equals(generated[1]!.bytes)).toBe(true);
    expect(mp3Seconds(bytes)).toBeGreaterThan(0.8);
  });

  it('JS: history.download of several ids is a ZIP of their audio (stored entries, CRC-32 checked by unzip)', async () => {
    const { data, rawResponse } = await me.client.history
      .download({ historyItemIds: generated.map((g) => g.id) })
      .withRawResponse();
    expect(rawResponse.headers.get('content-type')).toBe('application/zip');
    const entries = await unzipEntries((await readAll(data)).bytes);
    expect(entries.map((e) => e.name)).toEqual(generated.map((g) => `${g.id}.mp3`));
    expect(entries.map((e) => e.method)).toEqual(['stor', 'stor', 'stor']);
    for (const [i, entry] of entries.entries()) expect(entry.bytes.equals(generated[i]!.bytes)).toBe(true);
  });

  it('JS: history.download refuses unknown ids, other accounts’ ids and formats it cannot serve, in the speech error shape', async () => {
    await expect(
      me.client.history.download({ historyItemIds: [generated[0]!.id, 'NoSuchItem0000000000'] }),
    ).rejects.toMatchObject({
      statusCode: 404,
      body: { detail: { status: 'error', message: expect.stringContaining('NoSuchItem0000000000') } },
    });
    const other = await sdk.newCaller('SDK history other');
    await expect(other.client.history.download({ historyItemIds: [generated[0]!.id] })).rejects.toMatchObject({
      statusCode: 404,
    });
    await expect(
      me.client.history.download({ historyItemIds: [generated[0]!.id], outputFormat: 'wav' }),
    ).rejects.toMatchObject({ statusCode: 400, body: { detail: { status: 'bad_request' } } });
    for (const body of [{}, { history_item_ids: [] }, { history_item_ids: 'x' }, { history_item_ids: [7] }]) {
      const res = await fetch(`${sdk.platform.publicUrl}/v1/history/download`, {
        method: 'POST',
        headers: { 'xi-api-key': me.key, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect([body, res.status, await res.json()]).toEqual([
        body,
        400,
        { detail: { status: 'bad_request', message: expect.any(String) } },
      ]);
    }
  });

  it("JS: history.list's filters and order as the hosted API defines them", async () => {
    const ids = async (request: Parameters<SdkCaller['client']['history']['list']>[0]) =>
      (await me.client.history.list({ pageSize: 100, ...request })).history.map((h) => h.historyItemId);
    const all = generated.map((g) => g.id);
    expect(await ids({})).toEqual(all);
    expect(await ids({ sortDirection: 'asc' })).toEqual([...all].reverse());
    const firstPage = await me.client.history.list({ pageSize: 2, sortDirection: 'asc' });
    expect(await ids({ sortDirection: 'asc', startAfterHistoryItemId: firstPage.lastHistoryItemId! })).toEqual([
      all[0],
    ]);
    expect(await ids({ modelId: DEFAULT_MODEL_ID })).toEqual(all);
    expect(await ids({ modelId: 'no_such_model' })).toEqual([]);
    expect(await ids({ search: 'SECOND item' })).toEqual([all[1]]);
    expect(await ids({ source: 'TTS' })).toEqual(all);
    expect(await ids({ source: 'STS' })).toEqual([]);
    const { dateUnix } = await me.client.history.get(all[2]!);
    expect(await ids({ dateAfterUnix: dateUnix })).toEqual(all);
    expect(await ids({ dateBeforeUnix: dateUnix })).toEqual([]);
    expect(await ids({ dateAfterUnix: dateUnix + 3600 })).toEqual([]);
    for (const query of ['sort_direction=up', 'date_after_unix=yesterday', 'source=radio']) {
      const res = await fetch(`${sdk.platform.publicUrl}/v1/history?${query}`, { headers: { 'xi-api-key': me.key } });
      expect([query, res.status, await res.json()]).toEqual([
        query,
        400,
        { detail: { status: 'bad_request', message: expect.any(String) } },
      ]);
    }
  });

  it('Python: history.list, get, get_audio, download (one and several), delete', async () => {
    const victim = (
      await me.client.textToSpeech.convert(RACHEL, { text: 'To be deleted by Python.' }).withRawResponse()
    ).rawResponse.headers.get('history-item-id')!;
    await eventually(
      async () =>
        (await me.client.history.list({ pageSize: 10 })).history.filter((h) => h.state === 'complete').length === 4,
      20_000,
    );
    const steps = await me.python('history', { ids: generated.map((g) => g.id), delete_id: victim, search: 'item to' });
    expect(steps.list).toMatchObject({ ok: true, type: 'GetSpeechHistoryResponse' });
    const list = stepResult<{ history: { history_item_id: string }[]; has_more: boolean }>(steps, 'list');
    expect(list.history.map((h) => h.history_item_id)).toEqual([victim, ...generated.map((g) => g.id)].slice(0, 3));
    expect(list.has_more).toBe(true);
    expect(
      stepResult<{ history: { history_item_id: string }[] }>(steps, 'list_paged').history.map((h) => h.history_item_id),
    ).toEqual([generated[1]!.id]);
    // search, source and sort_direction as the Python SDK sends them: the three items, oldest first.
    expect(
      stepResult<{ history: { history_item_id: string }[] }>(steps, 'list_filtered').history.map(
        (h) => h.history_item_id,
      ),
    ).toEqual(generated.map((g) => g.id).reverse());
    expect(stepResult(steps, 'get')).toMatchObject({
      history_item_id: generated[0]!.id,
      voice_id: RACHEL,
      text: generated[0]!.text,
      content_type: 'audio/mpeg',
      state: 'complete',
    });
    expect(stepResult<PythonAudio>(steps, 'get_audio').sha256).toBe(sha256(generated[0]!.bytes));
    const one = audioBytes(stepResult<PythonAudio>(steps, 'download_one'));
    expect(one.equals(generated[0]!.bytes)).toBe(true);
    const many = stepResult<{
      first_bad_entry: string | null;
      entries: { name: string; size: number; compress_type: number; sha256: string }[];
    }>(steps, 'download_many');
    expect(many.first_bad_entry).toBeNull();
    expect(many.entries).toEqual(
      generated.map((g) => ({ name: `${g.id}.mp3`, size: g.bytes.length, compress_type: 0, sha256: sha256(g.bytes) })),
    );
    expect(stepResult(steps, 'delete')).toEqual({ status: 'ok' });
    expect(steps.get_deleted).toMatchObject({ ok: false, status_code: 404 });
  }, 120_000);
});

describe('voices through the Python SDK', () => {
  it('ivc.create without labels, get_all, get, settings, samples audio, update, delete', async () => {
    const me = await sdk.newCaller('SDK Python voices');
    const wav = espeakWav(REFERENCE_TEXT, 'en+f3', 60);
    const { voiceId } = await me.client.voices.ivc.create({
      name: 'Made by JS',
      files: [new File([new Uint8Array(wav)], 'ref.wav', { type: 'audio/wav' })],
    });
    const sampleId = (await me.client.voices.get(voiceId)).samples![0]!.sampleId!;
    const dir = mkdtempSync(path.join(os.tmpdir(), 'sdk-wav-'));
    const wavPath = path.join(dir, 'reference.wav');
    writeFileSync(wavPath, wav);
    let steps: Record<string, PythonStep>;
    try {
      steps = await me.python('voices', { wav_path: wavPath, voice_id: voiceId, sample_id: sampleId });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(steps.ivc_create).toMatchObject({
      ok: true,
      type: 'AddVoiceIvcResponseModel',
      result: { voice_id: expect.stringMatching(/^[A-Za-z0-9]{20}$/), requires_verification: false },
    });
    const all = stepResult<{ voices: { voice_id: string; category: string }[] }>(steps, 'get_all');
    expect(all.voices.filter((v) => v.category === 'cloned').map((v) => v.voice_id)).toEqual([voiceId]);
    expect(all.voices.map((v) => v.voice_id)).toContain(RACHEL);
    expect(stepResult(steps, 'get')).toMatchObject({
      voice_id: voiceId,
      name: 'Made by JS',
      category: 'cloned',
      samples: [{ sample_id: sampleId, file_name: 'ref.wav', size_bytes: wav.length }],
    });
    const defaults = stepResult<Record<string, unknown>>(steps, 'settings_get_default');
    expect(defaults).toMatchObject({ stability: expect.any(Number), similarity_boost: expect.any(Number) });
    expect(stepResult(steps, 'settings_update')).toEqual({ status: 'ok' });
    expect(stepResult(steps, 'settings_get')).toMatchObject({ stability: 0.25, similarity_boost: 0.8 });
    expect(audioBytes(stepResult<PythonAudio>(steps, 'samples_audio_get')).equals(wav)).toBe(true);
    expect(stepResult(steps, 'update')).toEqual({ status: 'ok' });
    expect(stepResult(steps, 'get_after_update')).toMatchObject({ voice_id: voiceId, name: 'Renamed by Python' });
    expect(stepResult(steps, 'delete')).toEqual({ status: 'ok' });
    await expect(me.client.voices.get(voiceId)).rejects.toMatchObject({ statusCode: 404 });
  }, 180_000);

  it('JS: voices.samples.audio.get is the uploaded sample, byte for byte', async () => {
    const me = await sdk.newCaller('SDK JS samples');
    const wav = espeakWav(REFERENCE_TEXT, 'en+f3', 50);
    const { voiceId } = await me.client.voices.ivc.create({
      name: 'Sampled',
      files: [new File([new Uint8Array(wav)], 'sample.wav', { type: 'audio/wav' })],
    });
    const sampleId = (await me.client.voices.get(voiceId)).samples![0]!.sampleId!;
    const { data, rawResponse } = await me.client.voices.samples.audio.get(voiceId, sampleId).withRawResponse();
    expect(rawResponse.headers.get('content-type')).toBe('audio/wav');
    expect((await readAll(data)).bytes.equals(wav)).toBe(true);
  }, 120_000);
});

describe('models and user through the Python SDK', () => {
  it('models.list is a list of Model; user.get and user.subscription.get', async () => {
    const me = await sdk.newCaller('SDK Python account');
    const steps = await me.python('account');
    expect(steps.models_list).toMatchObject({ ok: true, type: 'list', item_types: ['Model'] });
    const models = stepResult<{ model_id: string; can_do_text_to_speech: boolean }[]>(steps, 'models_list');
    expect(models.map((m) => m.model_id)).toContain(DEFAULT_MODEL_ID);
    expect(models.every((m) => m.can_do_text_to_speech)).toBe(true);
    expect(steps.user_get).toMatchObject({ ok: true, type: 'User' });
    expect(stepResult(steps, 'user_get')).toMatchObject({
      is_new_user: true,
      subscription: { tier: 'free', character_count: 0, character_limit: 100_000, voice_limit: 10 },
    });
    expect(steps.user_subscription_get).toMatchObject({ ok: true, type: 'Subscription' });
    const now = new Date();
    expect(stepResult(steps, 'user_subscription_get')).toMatchObject({
      tier: 'free',
      character_count: 0,
      character_limit: 100_000,
      next_character_count_reset_unix: Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1) / 1000,
    });
  }, 60_000);
});

describe('text to speech with timestamps through the JS SDK', () => {
  let me: SdkCaller;

  beforeAll(async () => {
    me = await sdk.newCaller('SDK JS timestamps');
  });

  /** Characters ordered in time, each inside the audio, the last one ending near its end. */
  function expectTimed(
    alignment: { characters: string[]; characterStartTimesSeconds: number[]; characterEndTimesSeconds: number[] },
    seconds: number,
  ) {
    const { characters, characterStartTimesSeconds: starts, characterEndTimesSeconds: ends } = alignment;
    expect([starts.length, ends.length]).toEqual([characters.length, characters.length]);
    for (let i = 0; i < characters.length; i += 1) {
      expect(ends[i]!).toBeGreaterThanOrEqual(starts[i]!);
      if (i > 0) expect(starts[i]!).toBeGreaterThanOrEqual(ends[i - 1]! - 0.001);
    }
    expect(ends.at(-1)!).toBeLessThanOrEqual(seconds + 0.05);
    expect(ends.at(-1)!).toBeGreaterThan(seconds / 2);
  }

  it('convertWithTimestamps: PCM speech in audioBase64, the text’s characters timed inside it, kept in history', async () => {
    const { data, rawResponse } = await me.client.textToSpeech
      .convertWithTimestamps(RACHEL, { text: TEXT, outputFormat: 'pcm_16000' })
      .withRawResponse();
    const seconds = pcm16kSeconds(Buffer.from(data.audioBase64, 'base64'));
    expect(seconds).toBeGreaterThan(1);
    expect(data.alignment!.characters.join('')).toBe(TEXT);
    expectTimed(data.alignment!, seconds);
    // The text as spoken: whitespace runs made one space (docs/speech.md, Timestamps).
    expect(data.normalizedAlignment!.characters.join('')).toBe(TEXT);
    expectTimed(data.normalizedAlignment!, seconds);
    const id = rawResponse.headers.get('history-item-id')!;
    await eventually(async () => (await me.client.history.get(id).catch(() => null))?.state === 'complete', 20_000);
    expect((await me.client.history.get(id)).text).toBe(TEXT);
  }, 60_000);

  it('streamWithTimestamps: chunks whose audio is the speech and whose characters run on to make the text', async () => {
    const chunks = [];
    for await (const chunk of await me.client.textToSpeech.streamWithTimestamps(RACHEL, {
      text: `${TEXT} ${TEXT}`,
      outputFormat: 'pcm_16000',
    }))
      chunks.push(chunk);
    const timed = chunks.filter((c) => c.alignment);
    expect(timed.length).toBeGreaterThanOrEqual(2);
    const seconds = pcm16kSeconds(Buffer.concat(chunks.map((c) => Buffer.from(c.audioBase64, 'base64'))));
    expect(seconds).toBeGreaterThan(2);
    const alignment = {
      characters: timed.flatMap((c) => c.alignment!.characters),
      characterStartTimesSeconds: timed.flatMap((c) => c.alignment!.characterStartTimesSeconds),
      characterEndTimesSeconds: timed.flatMap((c) => c.alignment!.characterEndTimesSeconds),
    };
    expect(alignment.characters.join('')).toBe(`${TEXT} ${TEXT}`);
    expectTimed(alignment, seconds);
  }, 60_000);
});

describe('text to speech through the Python SDK', () => {
  let steps: Record<string, PythonStep>;

  beforeAll(async () => {
    const me = await sdk.newCaller('SDK Python tts');
    steps = await me.python('tts', { voice_id: RACHEL, text: TEXT, formats: ['wav_16000', 'mp3_22050_32'] });
  }, 180_000);

  it('convert: MP3 (the default format) of the text’s length', () => {
    const seconds = mp3Seconds(audioBytes(stepResult<PythonAudio>(steps, 'convert')));
    expect(seconds).toBeGreaterThan(1);
    expect(seconds).toBeLessThan(6);
  });

  it('stream: PCM 16 kHz in several chunks, speech of the text’s length', () => {
    const result = stepResult<PythonAudio>(steps, 'stream');
    const seconds = pcm16kSeconds(audioBytes(result));
    expect(seconds).toBeGreaterThan(1);
    expect(seconds).toBeLessThan(6);
  });

  it('convert with output_format wav_16000: a RIFF WAVE file, 16 kHz mono 16-bit', () => {
    const wav = audioBytes(stepResult<PythonAudio>(steps, 'convert_wav_16000'));
    expect(wav.subarray(0, 4).toString('latin1')).toBe('RIFF');
    expect(wav.subarray(8, 12).toString('latin1')).toBe('WAVE');
    expect([wav.readUInt16LE(20), wav.readUInt16LE(22), wav.readUInt32LE(24), wav.readUInt16LE(34)]).toEqual([
      1, 1, 16_000, 16,
    ]);
    expect(pcm16kSeconds(wav.subarray(44))).toBeGreaterThan(1);
  });

  it('convert with output_format mp3_22050_32: MPEG frames at 22 050 Hz, 32 kbit/s', () => {
    const frames = parseMp3(audioBytes(stepResult<PythonAudio>(steps, 'convert_mp3_22050_32')));
    expect(new Set(frames.map((f) => `${f.sampleRate}/${f.bitrateKbps}`))).toEqual(new Set(['22050/32']));
    expect(mp3DurationSeconds(frames)).toBeGreaterThan(1);
  });

  it('convert_with_timestamps: audio_base64 and alignments whose characters are the text', () => {
    const result = stepResult<{
      audio_base64: string;
      alignment: { characters: string[]; character_end_times_seconds: number[] };
      normalized_alignment: { characters: string[] };
    }>(steps, 'convert_with_timestamps');
    expect(steps.convert_with_timestamps).toMatchObject({ type: 'AudioWithTimestampsResponse' });
    const seconds = pcm16kSeconds(Buffer.from(result.audio_base64, 'base64'));
    expect(result.alignment.characters.join('')).toBe(TEXT);
    expect(Math.max(...result.alignment.character_end_times_seconds)).toBeLessThanOrEqual(seconds + 0.05);
  });

  it('stream_with_timestamps: chunks whose audio and characters add up to the text', () => {
    const chunks = stepResult<{ audio_base64: string | null; alignment: { characters: string[] } | null }[]>(
      steps,
      'stream_with_timestamps',
    );
    expect(steps.stream_with_timestamps).toMatchObject({ item_types: ['StreamingAudioChunkWithTimestampsResponse'] });
    expect(chunks.map((c) => c.alignment?.characters.join('') ?? '').join('')).toBe(TEXT);
    expect(
      pcm16kSeconds(Buffer.concat(chunks.map((c) => Buffer.from(c.audio_base64 ?? '', 'base64')))),
    ).toBeGreaterThan(1);
  });

  it('convert_realtime (the SDK’s WebSocket helper): PCM 16 kHz speech', () => {
    const seconds = pcm16kSeconds(audioBytes(stepResult<PythonAudio>(steps, 'convert_realtime')));
    expect(seconds).toBeGreaterThan(1);
    expect(seconds).toBeLessThan(8);
  });
});
