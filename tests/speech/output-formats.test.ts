import { ElevenLabs } from '@elevenlabs/elevenlabs-js';
import { OUTPUT_FORMATS, resolveOutputFormat } from '@platform/speech-engine';
import { PLAN_NAMES } from '@platform/speech-store';
import { planAllowsFormat } from '../../apps/gateway/src/speech/tts/parse-request';

/**
 * The output format table against the official JS SDK's list of `output_format` values (the
 * hosted API's), and the plans each format needs, as the SDK's documentation states them.
 */
const SDK_FORMATS: string[] = Object.values(ElevenLabs.TextToSpeechConvertRequestOutputFormat);

describe('the output format table', () => {
  it('serves exactly the formats the official SDK lists', () => {
    expect(SDK_FORMATS.length).toBe(28);
    expect(OUTPUT_FORMATS.map((f) => f.id).sort()).toEqual([...SDK_FORMATS].sort());
  });

  it.each(SDK_FORMATS)('%s: codec, rate and bit rate as its name says', (id) => {
    const [codec, rate, kbps] = id.split('_');
    const format = resolveOutputFormat(id);
    expect(format).toMatchObject({ id, codec, sampleRate: Number(rate) });
    expect(format?.bitrate).toBe(kbps === undefined ? undefined : Number(kbps));
  });

  it('names the body in its Content-Type', () => {
    const types = Object.fromEntries(OUTPUT_FORMATS.map((f) => [f.id, f.contentType]));
    expect(types).toMatchObject({
      mp3_24000_48: 'audio/mpeg',
      pcm_32000: 'audio/pcm;rate=32000',
      pcm_48000: 'audio/pcm;rate=48000',
      ulaw_8000: 'audio/basic',
      alaw_8000: 'audio/x-alaw-basic',
      wav_8000: 'audio/wav',
      wav_48000: 'audio/wav',
      opus_48000_32: 'audio/ogg;codecs=opus',
    });
  });

  it('rejects what the SDK does not list', () => {
    for (const id of ['wav', 'wav_11025', 'alaw_16000', 'mp3_24000_32', 'pcm_11025', 'opus_24000_64'])
      expect(resolveOutputFormat(id)).toBeNull();
  });

  it('reads the aliases clients send as the formats they name (LiveKit lists mp3_44100)', () => {
    expect(resolveOutputFormat('mp3_44100')?.id).toBe('mp3_44100_128');
  });
});

describe('formats and plans', () => {
  const allowed = (plan: string) => OUTPUT_FORMATS.filter((f) => planAllowsFormat(plan, f)).map((f) => f.id);

  it('mp3_44100_192 needs creator; PCM and WAV at 44.1 kHz and above need pro; the rest every plan', () => {
    const paid = ['mp3_44100_192', 'pcm_44100', 'pcm_48000', 'wav_44100', 'wav_48000'];
    const everyPlan = SDK_FORMATS.filter((id) => !paid.includes(id));
    expect(allowed('free').sort()).toEqual([...everyPlan].sort());
    expect(allowed('starter').sort()).toEqual([...everyPlan].sort());
    expect(allowed('creator').sort()).toEqual([...everyPlan, 'mp3_44100_192'].sort());
    expect(allowed('pro').sort()).toEqual([...SDK_FORMATS].sort());
    expect(allowed('enterprise').sort()).toEqual([...SDK_FORMATS].sort());
  });

  it('an unknown or missing plan is free', () => {
    expect(allowed('gold')).toEqual(allowed('free'));
    expect(OUTPUT_FORMATS.filter((f) => planAllowsFormat(undefined, f)).length).toBe(allowed('free').length);
  });

  it('every minimum plan is one of the plan names', () => {
    for (const f of OUTPUT_FORMATS) if (f.minimumPlan) expect(PLAN_NAMES).toContain(f.minimumPlan);
  });
});
