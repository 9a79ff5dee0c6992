import { PREMADE_VOICES } from '@platform/speech-engine';
import { premadeFromCatalogue } from '../src';

describe('premadeFromCatalogue', () => {
  it('holds every catalogue voice with its id, words, engine parameters and default settings', () => {
    const premade = premadeFromCatalogue(PREMADE_VOICES);
    expect(premade).toHaveLength(PREMADE_VOICES.length);
    const rachel = PREMADE_VOICES.find((v) => v.name === 'Rachel')!;
    expect(premade.find((v) => v.voiceId === rachel.voice_id)).toEqual({
      voiceId: rachel.voice_id,
      name: 'Rachel',
      description: rachel.description,
      labels: rachel.labels,
      engineParams: rachel.engine,
      settings: rachel.settings,
    });
  });

  it('names where each preview is served when the deployment serves them', () => {
    const premade = premadeFromCatalogue(
      PREMADE_VOICES.slice(0, 2),
      (id) => `https://speech.example/v1/voices/${id}/preview`,
    );
    expect(premade.map((v) => v.previewUrl)).toEqual(
      PREMADE_VOICES.slice(0, 2).map((v) => `https://speech.example/v1/voices/${v.voice_id}/preview`),
    );
  });
});
