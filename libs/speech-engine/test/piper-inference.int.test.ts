import path from 'node:path';
import {
  DEFAULT_VOICE_SETTINGS,
  PIPER_VOICE_FILE,
  loadPiperVoice,
  phonemeIds,
  piperScales,
  synthesizePiperPcm,
  type PiperVoice,
} from '../src';
import { startPiperInference } from '../src/piper-inference';

// `npm test` fetches the voice into .stack/voices/piper (scripts/fetch-voices.mjs).
const dir = process.env.PIPER_VOICES_DIR ?? path.resolve(__dirname, '../../../.stack/voices/piper');

describe('the neural model on its own thread', () => {
  let voice: PiperVoice;
  beforeAll(async () => {
    voice = await loadPiperVoice(dir);
  }, 60_000);

  it('leaves the event loop free while it infers: timers keep firing until the audio arrives', async () => {
    const ids = BigInt64Array.from(
      await phonemeIds(
        'A sentence long enough to keep the model busy for a while, with a few more words.',
        voice.config,
      ),
      (id) => BigInt(id),
    );
    let turns = 0;
    let done = false;
    const pending = voice.inference
      .run(ids, piperScales(voice.config, DEFAULT_VOICE_SETTINGS, true))
      .finally(() => (done = true));
    // On the calling thread, ONNX Runtime's run holds the event loop for the whole inference: one
    // turn at most would pass before it resolves.
    while (!done) {
      await new Promise((resolve) => setTimeout(resolve, 1));
      turns++;
    }
    expect((await pending).length).toBeGreaterThan(22_050);
    expect(turns).toBeGreaterThan(5);
  }, 60_000);

  it('answers concurrent inferences each with its own audio, the same as one at a time', async () => {
    const texts = ['First.', 'The second one is longer.', 'Third, and last.'];
    const alone: Int16Array[] = [];
    for (const text of texts)
      alone.push(await synthesizePiperPcm(voice, text, DEFAULT_VOICE_SETTINGS, undefined, true));
    const together = await Promise.all(
      texts.map((text) => synthesizePiperPcm(voice, text, DEFAULT_VOICE_SETTINGS, undefined, true)),
    );
    expect(together.map((pcm, i) => Buffer.from(pcm.buffer).equals(Buffer.from(alone[i]!.buffer)))).toEqual([
      true,
      true,
      true,
    ]);
    expect(new Set(together.map((pcm) => pcm.length)).size).toBe(3);
  }, 60_000);

  it('closing fails the inference the thread held, without ending it under the native run; the next one starts a new thread', async () => {
    const inference = await startPiperInference({ modelPath: path.join(dir, `${PIPER_VOICE_FILE}.onnx`), threads: 1 });
    const ids = BigInt64Array.from(await phonemeIds('Hello there.', voice.config), (id) => BigInt(id));
    const scales = piperScales(voice.config, DEFAULT_VOICE_SETTINGS, true);
    const first = inference.run(ids, scales);
    // Closed while the inference runs: the call fails at once, the thread ends after the native run returns.
    await inference.close();
    await expect(first).rejects.toThrow(/the neural inference thread was closed/);
    const again = await inference.run(ids, scales);
    expect(again.length).toBeGreaterThan(0);
    await inference.close();
  }, 60_000);
});
