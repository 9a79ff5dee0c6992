import { createLogger } from '@platform/logger';
import {
  DEFAULT_VOICE_SETTINGS,
  modelCatalogue,
  renderParams,
  synthesizePcm,
  ENGINE_SAMPLE_RATE,
} from '@platform/speech-engine';
import { createStoreHooks, type SpeechStore } from '@platform/speech-store';
import { analyseVoice, decodeAudio, NEUTRAL_PARAMS } from '@platform/voice-analysis';
import type { Identity } from '@platform/identity';
import { parseTtsRequest } from '../../apps/gateway/src/speech/tts/parse-request';
import { prepareJob } from '../../apps/gateway/src/speech/tts/synthesis';
import type { JobRunner } from '../../apps/gateway/src/speech/tts/job-runner';
import { jobRenderParams } from '../../apps/synthesis-worker/src/synthesis/process-job';
import { as, startApi, uploadForm } from './api-harness';
import { espeakWav, REFERENCE_TEXT, wavFromPcm } from './audio';
import { testStore } from './helpers';

/**
 * Cloning quality: reference recordings made with the engine at clearly different pitches and
 * voices (a low male and a high female voice), each cloned through the API, then the same
 * sentence synthesised by the engine with each clone: each clone's median pitch must be within
 * 15 % of its reference, and nearer its own reference than the other.
 */
const SENTENCE = 'Every clone should sound like the voice it was made from, more or less.';

async function medianF0(wav: Buffer): Promise<number> {
  const decoded = await decodeAudio(wav, { maxDurationSec: 120 });
  return analyseVoice([decoded.samples]).f0MedianHz;
}

const CLONER: Identity & { sub: string } = {
  sub: 'cloner',
  roles: ['USER'],
  scope: 'speech:read speech:write',
  method: 'api_key',
};

/**
 * What the pipeline does with a request for a voice, minus the queue: the gateway resolves the
 * voice through the store's hook and merges the settings (`prepareJob`, where a clone's
 * `similarity_boost` is applied), the worker renders the job's parameters (`jobRenderParams`) and
 * runs the engine. Answers the median pitch of the result.
 */
async function speakF0(voiceId: string, voiceSettings?: Record<string, number>): Promise<number> {
  const runner = { newJobId: () => 'job_cloning_quality' } as unknown as JobRunner;
  const request = parseTtsRequest(
    { text: SENTENCE, ...(voiceSettings ? { voice_settings: voiceSettings } : {}) },
    {},
    5000,
    modelCatalogue({ neural: false }),
  );
  const job = await prepareJob(
    { hooks: createStoreHooks(store), runner, logger: createLogger('cloning-test', 'silent') },
    CLONER,
    voiceId,
    request,
    'convert',
  );
  const pcm = await synthesizePcm(SENTENCE, jobRenderParams(job.input));
  return medianF0(wavFromPcm(pcm, ENGINE_SAMPLE_RATE));
}

async function cloneVoice(name: string, wav: Buffer): Promise<string> {
  const res = await fetch(`${api.url}/voices/add`, {
    method: 'POST',
    headers: as(CLONER.sub),
    body: uploadForm({ name }, [{ name: `${name}.wav`, bytes: wav }]),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { voice_id: string }).voice_id;
}

const references = {
  low: espeakWav(REFERENCE_TEXT, 'en+m3', 20),
  high: espeakWav(REFERENCE_TEXT, 'en+f3', 80),
};
const clones: Partial<Record<'low' | 'high', string>> = {};

let store: SpeechStore;
let closeStore: () => Promise<void>;
let api: { url: string; close: () => Promise<void> };

beforeAll(async () => {
  ({ store, close: closeStore } = await testStore());
  api = await startApi(store);
});
afterAll(async () => {
  await api.close();
  await closeStore();
});

it('clones a low male and a high female voice so that each clone keeps its own pitch', async () => {
  const refF0 = { low: await medianF0(references.low), high: await medianF0(references.high) };
  expect(refF0.high / refF0.low).toBeGreaterThan(2); // clearly different voices

  const cloneF0: Record<'low' | 'high', number> = { low: 0, high: 0 };
  for (const which of ['low', 'high'] as const) {
    clones[which] = await cloneVoice(`${which} clone`, references[which]);
    // Default settings (similarity_boost 0.75): the derived character applied in full.
    cloneF0[which] = await speakF0(clones[which]!);
  }

  for (const [own, other] of [
    ['low', 'high'],
    ['high', 'low'],
  ] as const) {
    expect(Math.abs(cloneF0[own] - refF0[own]) / refF0[own]).toBeLessThan(0.15);
    expect(Math.abs(cloneF0[own] - refF0[own])).toBeLessThan(Math.abs(cloneF0[own] - refF0[other]));
  }
}, 60_000);

it("similarity_boost scales a clone's character: at 0 its pitch moves to the neutral voice's, at 1 it stays its own", async () => {
  // The neutral voice (eSpeak's defaults) as the engine speaks it.
  const neutralPcm = await synthesizePcm(SENTENCE, renderParams(NEUTRAL_PARAMS, DEFAULT_VOICE_SETTINGS));
  const neutral = await medianF0(wavFromPcm(neutralPcm, ENGINE_SAMPLE_RATE));
  for (const which of ['low', 'high'] as const) {
    clones[which] ??= await cloneVoice(`${which} clone`, references[which]);
    const refF0 = await medianF0(references[which]);
    const full = await speakF0(clones[which]!, { similarity_boost: 1 });
    const none = await speakF0(clones[which]!, { similarity_boost: 0 });
    // The references sit clearly away from neutral, on either side of it.
    expect(Math.abs(refF0 - neutral) / neutral).toBeGreaterThan(0.2);
    // At 1 the clone keeps its reference's pitch; at 0 it has the neutral voice's.
    expect(Math.abs(full - refF0) / refF0).toBeLessThan(0.15);
    expect(Math.abs(none - neutral) / neutral).toBeLessThan(0.1);
    // So it moved towards neutral, by most of the way.
    expect(Math.abs(none - neutral)).toBeLessThan(Math.abs(full - neutral) * 0.5);
  }
}, 60_000);
