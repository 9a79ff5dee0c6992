import { ElevenLabsClient, ElevenLabsError } from '@elevenlabs/elevenlabs-js';
import { analyseVoice, decodeAudio } from '@platform/voice-analysis';
import { createApiKey, registerAccount, startPlatform, type Platform } from '../gateway/platform';
import { readAll } from '../speech/support/audio';
import { espeakWav, REFERENCE_TEXT, wavFromPcm } from './audio';

/**
 * The speech API's account features (voices, cloning, history, user) through the real stack: auth,
 * content and the gateway as processes (tests/gateway platform helpers), a synthesis worker process on a queue of this file's own, API keys issued by
 * auth, and the official ElevenLabs JS SDK as the client. Every account is on the free plan, whose
 * limits this file sets with SPEECH_PLANS.
 */
const RACHEL = '21m00Tcm4TlvDq8ikWAM';
const CHARACTER_LIMIT = 1_000;

let platform: Platform;

interface Caller {
  key: string;
  client: ElevenLabsClient;
}

async function newCaller(name: string): Promise<Caller> {
  const account = await registerAccount(platform.publicUrl, name);
  const { key } = await createApiKey(platform.auth.url, account.id);
  return {
    key,
    client: new ElevenLabsClient({ apiKey: key, baseUrl: platform.publicUrl, maxRetries: 0, timeoutInSeconds: 30 }),
  };
}

function api(caller: Caller, path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${platform.publicUrl}/v1${path}`, {
    ...init,
    headers: { 'xi-api-key': caller.key, ...(init.headers as Record<string, string>) },
  });
}

async function characterCount(caller: Caller): Promise<number> {
  return (await caller.client.user.subscription.get()).characterCount;
}

/** Polls until `check` holds, failing after `timeoutMs` (the worker records history after delivery). */
async function until(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function medianF0(wav: Buffer): Promise<number> {
  return analyseVoice([(await decodeAudio(wav, { maxDurationSec: 120 })).samples]).f0MedianHz;
}

beforeAll(async () => {
  platform = await startPlatform({
    speechWorkers: {},
    gatewayEnv: {
      SPEECH_PLANS: JSON.stringify({
        free: { character_limit: CHARACTER_LIMIT, voice_limit: 3, max_voice_add_edits: 10 },
      }),
      // The gateway's own rate/concurrency limits are not under test: room for the 50-request burst.
      PLAN_LIMITS_JSON: JSON.stringify({ free: { rps: 1000, concurrency: 100 } }),
    },
  });
}, 120_000);

afterAll(async () => {
  await platform?.stop();
}, 30_000);

describe('official SDK through the real gateway', () => {
  it('voices: add a clone from a WAV made here, list, get, settings, edit, delete', async () => {
    const me = await newCaller('SDK voices');
    const wav = espeakWav(REFERENCE_TEXT, 'en+m3', 30);
    const added = await me.client.voices.ivc.create({
      name: 'My clone',
      description: 'made by espeak-ng in the test',
      labels: { accent: 'american', gender: 'male' },
      files: [new File([new Uint8Array(wav)], 'reference.wav', { type: 'audio/wav' })],
    });
    expect(added.voiceId).toMatch(/^[A-Za-z0-9]{20}$/);
    expect(added.requiresVerification).toBe(false);

    const { voices } = await me.client.voices.getAll();
    expect(voices.filter((v) => v.category === 'cloned').map((v) => v.voiceId)).toEqual([added.voiceId]);
    expect(voices.some((v) => v.voiceId === RACHEL)).toBe(true);

    const voice = await me.client.voices.get(added.voiceId);
    expect(voice).toMatchObject({
      voiceId: added.voiceId,
      name: 'My clone',
      category: 'cloned',
      description: 'made by espeak-ng in the test',
      labels: { accent: 'american', gender: 'male' },
    });
    expect(voice.samples).toHaveLength(1);
    expect(voice.samples![0]).toMatchObject({
      fileName: 'reference.wav',
      mimeType: 'audio/wav',
      sizeBytes: wav.length,
    });

    const defaults = await me.client.voices.settings.getDefault();
    expect(await me.client.voices.settings.get(added.voiceId)).toEqual(defaults);
    await me.client.voices.settings.update(added.voiceId, { stability: 0.3, similarityBoost: 0.9 });
    expect(await me.client.voices.settings.get(added.voiceId)).toMatchObject({ stability: 0.3, similarityBoost: 0.9 });

    // SDK `voices.update` is the speech API's POST /v1/voices/{id}/edit: rename and add a second sample.
    const second = espeakWav('A second sample of the same voice, to add to the first one.', 'en+m3', 30);
    expect(
      await me.client.voices.update(added.voiceId, {
        name: 'Renamed clone',
        files: [new File([new Uint8Array(second)], 'second.wav', { type: 'audio/wav' })],
      }),
    ).toEqual({ status: 'ok' });
    const edited = await me.client.voices.get(added.voiceId);
    expect(edited.name).toBe('Renamed clone');
    expect(edited.samples!.map((s) => s.fileName)).toEqual(['reference.wav', 'second.wav']);

    // Premade voices are neither editable nor deletable.
    await expect(me.client.voices.delete(RACHEL)).rejects.toMatchObject({ statusCode: 400 });

    expect(await me.client.voices.delete(added.voiceId)).toEqual({ status: 'ok' });
    await expect(me.client.voices.get(added.voiceId)).rejects.toMatchObject({ statusCode: 404 });
    expect((await me.client.voices.getAll()).voices.filter((v) => v.category === 'cloned')).toEqual([]);
  }, 90_000);

  it('history: convert a few, list with paging, get, exact audio bytes, delete', async () => {
    const me = await newCaller('SDK history');
    const texts = ['First history item.', 'Second history item.', 'Third history item.'];
    const generated: { id: string; bytes: Buffer }[] = [];
    for (const text of texts) {
      const { data, rawResponse } = await me.client.textToSpeech.convert(RACHEL, { text }).withRawResponse();
      const id = rawResponse.headers.get('history-item-id');
      expect(id).toMatch(/^[A-Za-z0-9]{20}$/);
      generated.push({ id: id!, bytes: (await readAll(data)).bytes });
    }
    await until(async () => (await me.client.history.list({ pageSize: 10 })).history.length === 3, 15_000);

    // Newest first, two pages of two then one.
    const page1 = await me.client.history.list({ pageSize: 2 });
    expect(page1.history.map((h) => h.historyItemId)).toEqual([generated[2]!.id, generated[1]!.id]);
    expect(page1.hasMore).toBe(true);
    expect(page1.lastHistoryItemId).toBe(generated[1]!.id);
    const page2 = await me.client.history.list({ pageSize: 2, startAfterHistoryItemId: page1.lastHistoryItemId });
    expect(page2.history.map((h) => h.historyItemId)).toEqual([generated[0]!.id]);
    expect(page2.hasMore).toBe(false);
    expect((await me.client.history.list({ voiceId: 'pNInz6obpgDQGcFmaJgB' })).history).toEqual([]);

    const item = await me.client.history.get(generated[0]!.id);
    expect(item).toMatchObject({
      historyItemId: generated[0]!.id,
      voiceId: RACHEL,
      voiceName: 'Rachel',
      text: texts[0],
      contentType: 'audio/mpeg',
      state: 'complete',
    });
    // The speech API's field is not in the SDK's model: it passes through under its wire name.
    expect((item as unknown as Record<string, unknown>).character_count_from_request).toBe(texts[0]!.length);
    expect(item.characterCountChangeTo - item.characterCountChangeFrom).toBe(texts[0]!.length);
    expect(item.settings).toMatchObject({ stability: expect.any(Number), similarity_boost: expect.any(Number) });

    for (const g of generated) {
      const audio = (await readAll(await me.client.history.getAudio(g.id))).bytes;
      expect(audio.equals(g.bytes)).toBe(true);
    }

    expect(await me.client.history.delete(generated[1]!.id)).toEqual({ status: 'ok' });
    await expect(me.client.history.get(generated[1]!.id)).rejects.toMatchObject({ statusCode: 404 });
    await expect(me.client.history.getAudio(generated[1]!.id)).rejects.toBeInstanceOf(ElevenLabsError);
    expect((await me.client.history.list()).history.map((h) => h.historyItemId)).toEqual([
      generated[2]!.id,
      generated[0]!.id,
    ]);
  }, 90_000);

  it('user and subscription', async () => {
    const me = await newCaller('SDK user');
    const fresh = await me.client.user.get();
    expect(fresh.isNewUser).toBe(true);
    expect(fresh.subscription).toMatchObject({
      tier: 'free',
      characterCount: 0,
      characterLimit: CHARACTER_LIMIT,
      voiceLimit: 3,
      maxVoiceAddEdits: 10,
      voiceAddEditCounter: 0,
    });
    const text = 'Twenty-nine characters here.';
    await readAll(await me.client.textToSpeech.convert(RACHEL, { text }));
    await until(async () => (await characterCount(me)) === text.length, 10_000);
    const sub = await me.client.user.subscription.get();
    expect(sub).toMatchObject({
      tier: 'free',
      characterCount: text.length,
      characterLimit: CHARACTER_LIMIT,
      voiceLimit: 3,
    });
    const now = new Date();
    expect(sub.nextCharacterCountResetUnix).toBe(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1) / 1000);
    const user = await me.client.user.get();
    expect(user.isNewUser).toBe(false);
    expect(user.subscription.characterCount).toBe(text.length);
  }, 60_000);
});

describe('quotas through the real gateway', () => {
  it('50 concurrent requests near the limit: never past it, refusals are character_limit_exceeded, the count is what was delivered', async () => {
    const me = await newCaller('Quota');
    const text = (i: number) =>
      `Request ${String(i).padStart(2, '0')} of fifty, forty characters.`.slice(0, 40).padEnd(40, '.');
    expect(text(7)).toHaveLength(40);
    // 25 requests of 40 characters fit in 1 000; the other 25 must be refused.
    let maxSeen = 0;
    let polling = true;
    const poller = (async () => {
      while (polling) {
        maxSeen = Math.max(maxSeen, await characterCount(me));
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    const results = await Promise.all(
      Array.from({ length: 50 }, async (_, i) => {
        const res = await api(me, `/text-to-speech/${RACHEL}?output_format=pcm_16000`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ text: text(i) }),
        });
        const body =
          res.status === 200
            ? Buffer.from(await res.arrayBuffer())
            : ((await res.json()) as { detail: { status: string } });
        return { status: res.status, body };
      }),
    );
    polling = false;
    await poller;

    // Reservations are made before synthesis: exactly 25 fit, whatever happens to them afterwards.
    const refused = results.filter((r) => r.status === 401);
    const delivered = results.filter((r) => r.status === 200);
    // A generation that fails on a loaded machine (503/502 in the documented shape) returns its characters.
    const failed = results.filter((r) => r.status !== 200 && r.status !== 401);
    for (const r of refused)
      expect(r.body).toEqual({ detail: { status: 'character_limit_exceeded', message: expect.any(String) } });
    for (const r of failed)
      expect([r.status, (r.body as { detail: { status: string } }).detail.status]).toEqual([
        expect.any(Number),
        'error',
      ]);
    for (const r of delivered) expect((r.body as Buffer).length).toBeGreaterThan(16_000);
    expect(refused.length).toBe(25);
    expect(delivered.length + failed.length).toBe(25);
    expect(delivered.length).toBeGreaterThan(0);
    expect(maxSeen).toBeLessThanOrEqual(CHARACTER_LIMIT);

    // Once everything settled: exactly the delivered characters, and one complete history item each.
    await until(async () => (await characterCount(me)) === delivered.length * 40, 20_000);
    await until(
      async () =>
        (await me.client.history.list({ pageSize: 100 })).history.filter((h) => h.state === 'complete').length ===
        delivered.length,
      15_000,
    );
    // One character more than what is left is refused, through the SDK too.
    const left = CHARACTER_LIMIT - delivered.length * 40;
    await expect(me.client.textToSpeech.convert(RACHEL, { text: 'x'.repeat(left + 1) })).rejects.toMatchObject({
      statusCode: 401,
      body: { detail: { status: 'character_limit_exceeded' } },
    });
    expect(await characterCount(me)).toBe(delivered.length * 40);
  }, 120_000);

  it("isolation: another account's voice and history ids are 404 on every endpoint", async () => {
    const [owner, other] = await Promise.all([newCaller('Owner'), newCaller('Other')]);
    const { voiceId } = await owner.client.voices.ivc.create({
      name: 'Private',
      files: [new File([new Uint8Array(espeakWav(REFERENCE_TEXT, 'en+f3', 70))], 'ref.wav')],
    });
    const sampleId = (await owner.client.voices.get(voiceId)).samples![0]!.sampleId!;
    const { rawResponse } = await owner.client.textToSpeech.convert(voiceId, { text: 'Only mine.' }).withRawResponse();
    const historyId = rawResponse.headers.get('history-item-id')!;
    await until(async () => (await owner.client.history.list()).history.length === 1, 15_000);
    const ownerUsage = await characterCount(owner);

    const form = new FormData();
    form.append('name', 'hijack');
    const probes: [string, string, RequestInit?][] = [
      ['GET', `/voices/${voiceId}`],
      ['GET', `/voices/${voiceId}/settings`],
      [
        'POST',
        `/voices/${voiceId}/settings/edit`,
        {
          body: JSON.stringify({ stability: 0.1, similarity_boost: 0.1 }),
          headers: { 'content-type': 'application/json' },
        },
      ],
      ['POST', `/voices/${voiceId}/edit`, { body: form }],
      ['GET', `/voices/${voiceId}/samples/${sampleId}/audio`],
      ['DELETE', `/voices/${voiceId}`],
      [
        'POST',
        `/text-to-speech/${voiceId}`,
        { body: JSON.stringify({ text: 'hijack' }), headers: { 'content-type': 'application/json' } },
      ],
      [
        'POST',
        `/text-to-speech/${voiceId}/stream`,
        { body: JSON.stringify({ text: 'hijack' }), headers: { 'content-type': 'application/json' } },
      ],
      ['GET', `/history/${historyId}`],
      ['GET', `/history/${historyId}/audio`],
      ['DELETE', `/history/${historyId}`],
    ];
    for (const [method, path, init] of probes) {
      const res = await api(other, path, { method, ...init });
      expect([method, path, res.status]).toEqual([method, path, 404]);
      await res.arrayBuffer();
    }
    expect((await other.client.voices.getAll()).voices.some((v) => v.voiceId === voiceId)).toBe(false);
    expect((await other.client.history.list()).history).toEqual([]);
    expect((await other.client.history.list({ voiceId })).history).toEqual([]);
    expect((await other.client.user.get()).subscription).toMatchObject({
      characterCount: 0,
      voiceAddEditCounter: 0,
      voiceSlotsUsed: 0,
    });

    // Nothing the other account tried changed the owner's voice, history or usage.
    expect(await owner.client.voices.get(voiceId)).toMatchObject({ name: 'Private' });
    expect(await owner.client.voices.settings.get(voiceId)).toEqual(await owner.client.voices.settings.getDefault());
    expect((await owner.client.history.get(historyId)).historyItemId).toBe(historyId);
    expect(await characterCount(owner)).toBe(ownerUsage);
  }, 90_000);
});

describe('cloning through the real gateway', () => {
  it("a clone of a low-pitched reference speaks within 15 % of the reference's median pitch", async () => {
    const me = await newCaller('Cloner');
    const reference = espeakWav(REFERENCE_TEXT, 'en+m3', 20);
    const refF0 = await medianF0(reference);
    const { voiceId } = await me.client.voices.ivc.create({
      name: 'Low clone',
      files: [new File([new Uint8Array(reference)], 'low.wav', { type: 'audio/wav' })],
    });
    const pcm = (
      await readAll(
        await me.client.textToSpeech.convert(voiceId, {
          text: 'Every clone should sound like the voice it was made from, more or less.',
          outputFormat: 'pcm_16000',
        }),
      )
    ).bytes;
    const samples = new Int16Array(pcm.buffer.slice(pcm.byteOffset, pcm.byteOffset + (pcm.length - (pcm.length % 2))));
    const cloneF0 = await medianF0(wavFromPcm(samples, 16_000));
    // The premade default (Rachel, female) is far from the low reference: the clone is not just a default voice.
    const rachel = (
      await readAll(
        await me.client.textToSpeech.convert(RACHEL, {
          text: 'Every clone should sound like the voice it was made from, more or less.',
          outputFormat: 'pcm_16000',
        }),
      )
    ).bytes;
    const rachelF0 = await medianF0(
      wavFromPcm(
        new Int16Array(
          rachel.buffer.slice(rachel.byteOffset, rachel.byteOffset + (rachel.length - (rachel.length % 2))),
        ),
        16_000,
      ),
    );
    expect(Math.abs(cloneF0 - refF0) / refF0).toBeLessThan(0.15);
    expect(Math.abs(rachelF0 - refF0) / refF0).toBeGreaterThan(0.3);
  }, 90_000);
});
