import { nearestSpeaker, speakerDistance, type MeasuredSpeaker, type SpeakerFeatures } from '../src';

/** Features as the analysis measures them (median F0, spectral centroid, F1, F2 in Hz). */
const voice = (f0MedianHz: number, spectralCentroidHz: number, formant1Hz: number, formant2Hz: number) =>
  ({ f0MedianHz, spectralCentroidHz, formant1Hz, formant2Hz }) satisfies SpeakerFeatures;

const SPEAKERS: MeasuredSpeaker[] = [
  { model: 'en_US-multi-medium', id: 0, language: 'en', features: voice(100, 1500, 500, 1500) },
  { model: 'en_US-multi-medium', id: 1, language: 'en', features: voice(210, 2000, 600, 1900) },
  { model: 'en_US-multi-medium', id: 2, language: 'en', features: voice(130, 1700, 520, 1600) },
  { model: 'de_DE-multi-medium', id: 0, language: 'de', features: voice(205, 2000, 600, 1900) },
];

describe('the installed speaker a clone starts from', () => {
  it('is the speaker of its language nearest in pitch and spectral envelope', () => {
    expect(nearestSpeaker(voice(220, 2100, 620, 1950), SPEAKERS, 'en-us')).toEqual({
      model: 'en_US-multi-medium',
      id: 1,
    });
    expect(nearestSpeaker(voice(95, 1450, 480, 1480), SPEAKERS, 'en')).toEqual({ model: 'en_US-multi-medium', id: 0 });
    expect(nearestSpeaker(voice(125, 1650, 510, 1580), SPEAKERS, 'en-GB')).toEqual({
      model: 'en_US-multi-medium',
      id: 2,
    });
    // The German speaker is as near as speaker 1, but speaks another language.
    expect(nearestSpeaker(voice(205, 2000, 600, 1900), SPEAKERS, 'de')).toEqual({ model: 'de_DE-multi-medium', id: 0 });
  });

  it('weighs pitch and envelope on log scales: twice as high is as far as half as high', () => {
    const base = voice(150, 1800, 550, 1700);
    expect(speakerDistance(base, voice(300, 1800, 550, 1700))).toBeCloseTo(
      speakerDistance(base, voice(75, 1800, 550, 1700)),
      10,
    );
    expect(speakerDistance(base, base)).toBe(0);
  });

  it('none with fewer than two speakers installed, or none of the language', () => {
    expect(nearestSpeaker(voice(220, 2100, 620, 1950), SPEAKERS.slice(0, 1), 'en')).toBeNull();
    expect(nearestSpeaker(voice(220, 2100, 620, 1950), SPEAKERS, 'fr')).toBeNull();
  });
});
