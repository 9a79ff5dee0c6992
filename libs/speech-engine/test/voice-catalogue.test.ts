import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bestModel, loadVoiceCatalogue, PREMADE_VOICES, VoiceCatalogueError } from '../src';

/** A multi-speaker Piper stand-in (German, three speakers: low, mid, high; make-tone-voice.py). */
const TONE = path.resolve(__dirname, '../../../tests/fixtures/piper-tone');
const TONE_VOICE = 'de_DE-tone-multi';
const HANS = PREMADE_VOICES.find((v) => v.name === 'Hans')!;

describe('the voice catalogue of the voices directory', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'voices-'));
    for (const file of [`${TONE_VOICE}.onnx`, `${TONE_VOICE}.onnx.json`])
      fs.copyFileSync(path.join(TONE, file), path.join(dir, file));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
  const writeCatalogue = (body: unknown) =>
    fs.writeFileSync(path.join(dir, 'voices.json'), typeof body === 'string' ? body : JSON.stringify(body));

  it('no directory: the premade voices and eSpeak NG alone', () => {
    const catalogue = loadVoiceCatalogue('');
    expect(catalogue.voices).toEqual(PREMADE_VOICES);
    expect(catalogue.models.map((m) => m.model_id)).toEqual(['espeak_ng_v1']);
    expect(catalogue.speakerFor({}, 'en')).toBeNull();
  });

  it("lists the installed voices' speakers and serves the neural model in their language only", () => {
    const catalogue = loadVoiceCatalogue(dir);
    expect(catalogue.installed.map((v) => [v.name, v.language, v.config.num_speakers])).toEqual([
      [TONE_VOICE, 'de', 3],
    ]);
    expect(catalogue.speakers().map((s) => s.id)).toEqual([0, 1, 2]);
    const neural = catalogue.models[1]!;
    expect(neural.model_id).toBe('piper_en_us_v1');
    expect(neural.languages.map((l) => l.language_id)).toEqual(['de']);
    expect(neural.description).toMatch(/run this model for German\./);
    expect(bestModel('de', catalogue.models).model_id).toBe('piper_en_us_v1');
    expect(bestModel('en-us', catalogue.models).model_id).toBe('espeak_ng_v1');
    // A voice with no speaker of its own speaks with the language's first speaker; English has none.
    expect(catalogue.speakerFor(HANS.engine, 'de')).toMatchObject({ voice: { name: TONE_VOICE }, id: 0 });
    expect(catalogue.speakerFor(HANS.engine, 'en')).toBeNull();
  });

  it('maps catalogue voices onto speakers (by name or number), with or without a colour, and replaces a premade id', () => {
    writeCatalogue({
      voices: [
        { voice_id: 'tone_mid', name: 'Mid', model: TONE_VOICE, speaker: 'mid', labels: { gender: 'female' } },
        {
          voice_id: HANS.voice_id,
          name: 'Hans',
          model: TONE_VOICE,
          speaker: 2,
          colour: { pitch_hz: 110, formant_ratio: 0.95 },
          labels: { gender: 'male', accent: 'german' },
          preview_text: 'Hallo!',
        },
      ],
    });
    const catalogue = loadVoiceCatalogue(dir);
    const mid = catalogue.findVoice('tone_mid')!;
    expect(mid.engine).toMatchObject({ voice: 'de', speaker: { model: TONE_VOICE, id: 1 }, neural: TONE_VOICE });
    expect(mid.labels).toEqual({ gender: 'female', accent: 'de_DE', language: 'de' });
    const hans = catalogue.findVoice(HANS.voice_id)!;
    expect(hans.engine).toMatchObject({
      speaker: { model: TONE_VOICE, id: 2 },
      colour: { pitchHz: 110, formantRatio: 0.95 },
    });
    expect(hans.engine.neural).toBeUndefined();
    expect(hans.previewText).toBe('Hallo!');
    expect(catalogue.voices.filter((v) => v.voice_id === HANS.voice_id)).toHaveLength(1);
    expect(catalogue.voices).toHaveLength(PREMADE_VOICES.length + 1);
    expect(catalogue.speakerFor(mid.engine, 'de-DE')).toMatchObject({ id: 1 });
  });

  it.each([
    ['not JSON', '{voices:', /voices\.json is not JSON/],
    ['an unknown field', { voices: [], extra: 1 }, /voices\.json: \(root\): Unrecognized key\(s\) in object: 'extra'/],
    [
      'a model not installed',
      { voices: [{ voice_id: 'x', name: 'X', model: 'en_US-amy-low', labels: { gender: 'female' } }] },
      /voices\.json: voices\.0\.model: en_US-amy-low is not an installed Piper voice \(installed: de_DE-tone-multi\)/,
    ],
    [
      'a speaker the model has not',
      { voices: [{ voice_id: 'x', name: 'X', model: TONE_VOICE, speaker: 'nobody', labels: { gender: 'male' } }] },
      /voices\.0\.speaker: de_DE-tone-multi has no speaker "nobody" \(0-2 or a name of its speaker_id_map\)/,
    ],
    [
      'a voice id twice',
      {
        voices: [
          { voice_id: 'x', name: 'X', model: TONE_VOICE, labels: { gender: 'male' } },
          { voice_id: 'x', name: 'Y', model: TONE_VOICE, labels: { gender: 'male' } },
        ],
      },
      /voices\.1\.voice_id: x is listed twice/,
    ],
    [
      'a colour out of range',
      {
        voices: [
          {
            voice_id: 'x',
            name: 'X',
            model: TONE_VOICE,
            colour: { pitch_hz: 900, formant_ratio: 1 },
            labels: { gender: 'male' },
          },
        ],
      },
      /voices\.0\.colour\.pitch_hz: Number must be less than or equal to 400/,
    ],
  ])('a catalogue file with %s stops the boot with what is wrong', (_case, body, message) => {
    writeCatalogue(body);
    expect(() => loadVoiceCatalogue(dir)).toThrow(VoiceCatalogueError);
    expect(() => loadVoiceCatalogue(dir)).toThrow(message);
  });

  it('skips, with the reason, a voice without its config or at another sample rate; the others serve', () => {
    fs.writeFileSync(path.join(dir, 'en_US-lonely-medium.onnx'), 'x');
    const config = JSON.parse(fs.readFileSync(path.join(TONE, `${TONE_VOICE}.onnx.json`), 'utf8')) as {
      audio: { sample_rate: number };
    };
    config.audio.sample_rate = 16000;
    fs.copyFileSync(path.join(TONE, `${TONE_VOICE}.onnx`), path.join(dir, 'de_DE-tone-low.onnx'));
    fs.writeFileSync(path.join(dir, 'de_DE-tone-low.onnx.json'), JSON.stringify(config));
    const catalogue = loadVoiceCatalogue(dir);
    expect(catalogue.installed.map((v) => v.name)).toEqual([TONE_VOICE]);
    expect(catalogue.skipped).toEqual([
      { name: 'de_DE-tone-low', reason: 'its sample rate is 16000 Hz, not 22050 Hz' },
      { name: 'en_US-lonely-medium', reason: 'en_US-lonely-medium.onnx.json is missing' },
    ]);
  });
});
