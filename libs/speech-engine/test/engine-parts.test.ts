import {
  Resampler,
  decodeUlaw,
  encodeUlaw,
  parseVoiceSettings,
  planPieces,
  renderParams,
  resolveLanguage,
  resolveModel,
  resolveOutputFormat,
  splitSentences,
  takeSentences,
  VoiceSettingsError,
  PREMADE_VOICES,
} from '../src';

function sine(rate: number, hz: number, seconds: number, amp = 10000): Int16Array {
  return Int16Array.from({ length: Math.round(rate * seconds) }, (_, i) =>
    Math.round(amp * Math.sin((2 * Math.PI * hz * i) / rate)),
  );
}
function rms(x: Int16Array, from = 0, to = x.length): number {
  let s = 0;
  for (let i = from; i < to; i++) s += x[i]! ** 2;
  return Math.sqrt(s / (to - from));
}

describe('Resampler', () => {
  it('keeps a tone in the pass band at its level and length, across chunk boundaries', () => {
    const input = sine(22050, 440, 1);
    const r = new Resampler(22050, 16000);
    const parts = [r.push(input.subarray(0, 7000)), r.push(input.subarray(7000)), r.end()];
    const out = Int16Array.from(parts.flatMap((p) => [...p]));
    expect(Math.abs(out.length - 16000)).toBeLessThanOrEqual(2);
    expect(rms(out, 2000, 14000) / rms(input, 2000, 20000)).toBeCloseTo(1, 1);
  });

  it('removes content above the new Nyquist frequency instead of aliasing it', () => {
    // 6 kHz cannot exist at 8 kHz sampling (Nyquist 4 kHz); naive decimation would fold it to 2 kHz.
    const input = sine(22050, 6000, 0.5);
    const r = new Resampler(22050, 8000);
    const out = Int16Array.from([...r.push(input), ...r.end()]);
    expect(rms(out, 500, out.length - 500)).toBeLessThan(100);
  });

  it('upsamples without changing duration', () => {
    const r = new Resampler(22050, 44100);
    const out = Int16Array.from([...r.push(sine(22050, 300, 0.25)), ...r.end()]);
    expect(Math.abs(out.length - 11025)).toBeLessThanOrEqual(2);
  });
});

describe('u-law', () => {
  it('round-trips within the codec step', () => {
    for (const s of [0, 100, -100, 1000, -5000, 32000, -32768]) {
      const back = decodeUlaw(encodeUlaw(Int16Array.of(s))[0]!);
      expect(Math.abs(back - s)).toBeLessThanOrEqual(Math.max(8, Math.abs(s) * 0.07));
    }
  });
});

describe('sentences', () => {
  it('splits at sentence ends and keeps long sentences bounded', () => {
    expect(splitSentences('One. Two! Three? Four')).toEqual(['One.', 'Two!', 'Three?', 'Four']);
    const long = `${'word '.repeat(200)}end.`;
    for (const piece of splitSentences(long)) expect(piece.length).toBeLessThanOrEqual(250);
  });
  it('plans the first sentence alone, then groups', () => {
    const pieces = planPieces('First. Second. Third. Fourth.');
    expect(pieces).toEqual(['First.', 'Second. Third. Fourth.']);
  });
  it('takes complete sentences off a stream buffer', () => {
    expect(takeSentences('Hello there. How are', false)).toEqual({ ready: ['Hello there.'], rest: 'How are' });
    expect(takeSentences('no end yet', false)).toEqual({ ready: [], rest: 'no end yet' });
    expect(takeSentences('no end yet', true)).toEqual({ ready: ['no end yet'], rest: '' });
  });
});

describe('catalogues', () => {
  it('resolves languages, regional variants and rejects unknown codes', () => {
    expect(resolveLanguage('de')?.espeak).toBe('de');
    expect(resolveLanguage('pt-BR')?.espeak).toBe('pt-br');
    expect(resolveLanguage('en_gb')?.espeak).toBe('en-gb');
    expect(resolveLanguage('en-AU')?.id).toBe('en');
    expect(resolveLanguage('xx')).toBeNull();
    expect(resolveLanguage('not a tag')).toBeNull();
  });
  it('resolves models and hosted aliases', () => {
    expect(resolveModel(undefined)?.model_id).toBe('espeak_ng_v1');
    expect(resolveModel('eleven_flash_v2_5')?.model_id).toBe('espeak_ng_v1');
    expect(resolveModel('nope')).toBeNull();
  });
  it('knows every output format the docs list', () => {
    for (const id of [
      'mp3_22050_32',
      'mp3_44100_32',
      'mp3_44100_64',
      'mp3_44100_96',
      'mp3_44100_128',
      'mp3_44100_192',
      'pcm_8000',
      'pcm_16000',
      'pcm_22050',
      'pcm_24000',
      'pcm_44100',
      'ulaw_8000',
      'opus_48000_32',
      'opus_48000_64',
      'opus_48000_96',
      'opus_48000_128',
      'opus_48000_192',
    ]) {
      expect(resolveOutputFormat(id)?.id).toBe(id);
    }
    expect(resolveOutputFormat('opus_48000_64')).toMatchObject({
      codec: 'opus',
      sampleRate: 48000,
      bitrate: 64,
      contentType: 'audio/ogg;codecs=opus',
    });
    for (const id of ['opus_48000_48', 'opus_24000_64', 'flac_44100']) expect(resolveOutputFormat(id)).toBeNull();
    expect(resolveOutputFormat('mp3_44100')?.id).toBe('mp3_44100_128');
  });
  it('premade voices span both genders, several accents and languages', () => {
    expect(new Set(PREMADE_VOICES.map((v) => v.labels.gender))).toEqual(new Set(['male', 'female']));
    expect(new Set(PREMADE_VOICES.map((v) => v.labels.accent)).size).toBeGreaterThan(5);
    expect(new Set(PREMADE_VOICES.map((v) => v.labels.language)).size).toBeGreaterThan(5);
    expect(new Set(PREMADE_VOICES.map((v) => v.voice_id)).size).toBe(PREMADE_VOICES.length);
  });
});

describe('voice settings', () => {
  it('rejects values outside 0–1 and wrong types', () => {
    expect(() => parseVoiceSettings({ stability: 1.01 })).toThrow(VoiceSettingsError);
    expect(() => parseVoiceSettings({ style: -0.5 })).toThrow(VoiceSettingsError);
    expect(() => parseVoiceSettings({ use_speaker_boost: 'yes' })).toThrow(VoiceSettingsError);
    expect(() => parseVoiceSettings({ speed: 2 })).toThrow(VoiceSettingsError);
    expect(() => parseVoiceSettings('x')).toThrow(VoiceSettingsError);
  });
  it('maps settings to engine parameters as documented', () => {
    const voice = PREMADE_VOICES[0]!.engine;
    const calm = renderParams(voice, parseVoiceSettings({ stability: 1 }));
    const lively = renderParams(voice, parseVoiceSettings({ stability: 0 }));
    expect(lively.pitchRange).toBeGreaterThan(calm.pitchRange * 3);
    const fast = renderParams(voice, parseVoiceSettings({ speed: 1.2 }));
    expect(fast.speed).toBeGreaterThan(renderParams(voice, parseVoiceSettings({})).speed);
    const neutral = renderParams({ ...voice, pitch: 80 }, parseVoiceSettings({ similarity_boost: 0 }));
    expect(neutral.pitch).toBe(65);
    // A clone arrives with similarity_boost applied already: not scaled a second time.
    const clone = renderParams(
      { ...voice, pitch: 80, pitchRange: 70, speed: 200 },
      parseVoiceSettings({ similarity_boost: 0 }),
      { similarityApplied: true },
    );
    expect(clone).toMatchObject({ pitch: 80, pitchRange: 70, speed: 200 });
  });
});
