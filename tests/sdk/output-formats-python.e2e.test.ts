import { OUTPUT_FORMATS } from '@platform/speech-engine';
import { decode, probe } from '../speech/support/ffmpeg-decode';
import { audioBytes, stepResult, type PythonAudio, type PythonStep } from './python-sdk';
import { startSdkPlatform, type SdkPlatform } from './sdk-platform';

/**
 * The official Python SDK's `text_to_speech.convert` and `.stream` in every `output_format` through
 * the real platform (auth, content, gateway and a worker as processes), as an account on the free
 * plan: each format that plan includes is decoded by Debian's ffprobe/ffmpeg (codec, rate, one
 * channel, the text's duration); the formats kept for paid plans are the SDK's ApiError 403
 * `subscription_required`. (Every format through the gateway edge and the JS SDK:
 * tests/speech/output-formats.e2e.test.ts.)
 */
const RACHEL = '21m00Tcm4TlvDq8ikWAM';
const TEXT = 'Every format through the Python client.';
const FREE = OUTPUT_FORMATS.filter((f) => !f.minimumPlan).map((f) => f.id);
const PAID = OUTPUT_FORMATS.filter((f) => f.minimumPlan).map((f) => f.id);
const CODEC_NAMES: Record<string, string> = {
  mp3: 'mp3',
  pcm: 'pcm_s16le',
  wav: 'pcm_s16le',
  ulaw: 'pcm_mulaw',
  alaw: 'pcm_alaw',
  opus: 'opus',
};

let sdk: SdkPlatform;
let steps: Record<string, PythonStep>;

beforeAll(async () => {
  sdk = await startSdkPlatform({ free: { character_limit: 100_000 } });
  const me = await sdk.newCaller('SDK Python formats');
  steps = await me.python('formats', { voice_id: RACHEL, text: TEXT, formats: [...FREE, ...PAID] });
}, 600_000);

afterAll(async () => {
  await sdk?.stop();
}, 30_000);

describe('the Python SDK in every output format', () => {
  it('covers the 28 formats the SDK lists, 23 of them on the free plan', () => {
    expect(FREE.length + PAID.length).toBe(28);
    expect(PAID.sort()).toEqual(['mp3_44100_192', 'pcm_44100', 'pcm_48000', 'wav_44100', 'wav_48000']);
  });

  it.each(FREE)('%s: convert and stream decode to the same rate, one channel and duration', async (format) => {
    const [codec, rate] = format.split('_') as [string, string];
    const seconds: number[] = [];
    for (const call of ['convert', 'stream']) {
      const bytes = audioBytes(stepResult<PythonAudio>(steps, `${call}_${format}`));
      expect(await probe(format, bytes)).toMatchObject({
        codecName: CODEC_NAMES[codec],
        sampleRate: Number(rate),
        channels: 1,
      });
      seconds.push((await decode(format, bytes, Number(rate))).length / Number(rate));
    }
    expect(seconds[0]).toBeGreaterThan(1);
    // The same text, whole and streamed: the same audio (lossy codecs: within an encoder's delay).
    expect(Math.abs(seconds[0]! - seconds[1]!)).toBeLessThan(0.01);
  });

  it.each(PAID)('%s: the SDK raises ApiError 403 subscription_required for a free account', (format) => {
    for (const call of ['convert', 'stream']) {
      expect(steps[`${call}_${format}`]).toMatchObject({
        ok: false,
        error: 'ApiError',
        status_code: 403,
        body: { detail: { status: 'subscription_required', message: expect.stringContaining('plan') } },
      });
    }
  });
});
