import {
  PhonemeError,
  arpabetToIpa,
  compilePronunciation,
  createTextAligner,
  espeakInput,
  ipaToEspeak,
  pronouncePiece,
  spokenPhonemes,
  wordsInPiece,
  type PronunciationRule,
} from '../src';

const alias = (string_to_replace: string, aliasText: string, more: Partial<PronunciationRule> = {}) =>
  ({ type: 'alias', string_to_replace, alias: aliasText, ...more }) as PronunciationRule;

describe('phoneme alphabets', () => {
  it('turns IPA into eSpeak NG mnemonics, diphthongs and stress included, transcription slashes dropped', () => {
    expect(ipaToEspeak('/təˈmeɪtoʊ/')).toBe("t@'meItoU");
    expect(ipaToEspeak('ˌkuːbərˈneɪtiːz')).toBe(",ku:b@r'neIti:z");
    expect(ipaToEspeak('θɪŋk ðæt')).toBe('TINk Dat');
  });

  it('turns CMU ARPAbet into IPA with stress before the stressed vowel and reduced unstressed AH/ER', () => {
    expect(arpabetToIpa('T AH0 M EY1 T OW2')).toBe('təmˈeɪtˌoʊ');
    expect(arpabetToIpa('b er1 d')).toBe('bˈɜːd');
    expect(spokenPhonemes('T AH0 M EY1 T OW2', 'cmu-arpabet').espeak).toBe("t@m'eIt,oU");
  });

  it('refuses symbols outside the alphabets and strings without phonemes', () => {
    expect(() => ipaToEspeak('tə☃')).toThrow(PhonemeError);
    expect(() => ipaToEspeak('ˈ')).toThrow(/no phonemes/);
    expect(() => arpabetToIpa('T XX1')).toThrow(/"XX1"/);
    expect(() => arpabetToIpa('   ')).toThrow(PhonemeError);
  });
});

describe('applying rules to a piece', () => {
  it('replaces whole words only, case-sensitively by default, and the first rule for a string wins', () => {
    const rules = compilePronunciation([alias('UN', 'United Nations'), alias('UN', 'you en')]);
    const said = pronouncePiece('The UN and UNESCO, un UN.', rules);
    expect(espeakInput(said).text).toBe('The  United Nations  and UNESCO, un  United Nations .');
  });

  it('matches case-insensitively and inside words when the rule says so', () => {
    const rules = compilePronunciation([alias('nginx', 'engine x', { case_sensitive: false, word_boundaries: false })]);
    expect(espeakInput(pronouncePiece('NGINX; my-nginxes', rules)).text).toBe(' engine x ; my- engine x es');
  });

  it('says a phoneme rule as eSpeak NG phoneme input and hands the neural model its IPA', () => {
    const rules = compilePronunciation([
      { type: 'phoneme', string_to_replace: 'tomato', phoneme: '/təˈmɑːtoʊ/', alphabet: 'ipa' },
    ]);
    const segments = pronouncePiece('A tomato.', rules);
    expect(segments).toEqual([
      { from: 0, to: 2, kind: 'text', text: 'A ' },
      { from: 2, to: 8, kind: 'phonemes', phonemes: { ipa: 'təˈmɑːtoʊ', espeak: "t@'mA:toU" } },
      { from: 8, to: 9, kind: 'text', text: '.' },
    ]);
    expect(espeakInput(segments).text).toBe("A  [[t@'mA:toU]] .");
  });

  it('maps the engine’s word timing back onto the words the client wrote, so alignment is of the original text', () => {
    const piece = 'Visit the UN now.';
    const said = espeakInput(pronouncePiece(piece, compilePronunciation([alias('UN', 'United Nations')]))); // "Visit the  United Nations  now."
    expect(said.text).toBe('Visit the  United Nations  now.');
    // The engine's words over its input: Visit, the, United, Nations, now.
    const words = [
      { start: 0, end: 5, startSeconds: 0, endSeconds: 0.3 },
      { start: 6, end: 9, startSeconds: 0.3, endSeconds: 0.4 },
      { start: 11, end: 17, startSeconds: 0.4, endSeconds: 0.8 },
      { start: 18, end: 25, startSeconds: 0.8, endSeconds: 1.2 },
      { start: 27, end: 30, startSeconds: 1.2, endSeconds: 1.5 },
    ];
    const mapped = wordsInPiece(words, said.origin);
    expect(mapped).toEqual([
      { start: 0, end: 5, startSeconds: 0, endSeconds: 0.3 },
      { start: 6, end: 9, startSeconds: 0.3, endSeconds: 0.4 },
      { start: 10, end: 12, startSeconds: 0.4, endSeconds: 1.2 },
      { start: 13, end: 16, startSeconds: 1.2, endSeconds: 1.5 },
    ]);
    const { alignment } = createTextAligner(piece).piece(piece, mapped, 0, 1.6);
    expect(alignment.characters.join('')).toBe(piece);
    // "UN" spans both words of its alias.
    expect(alignment.character_start_times_seconds[10]).toBe(0.4);
    expect(alignment.character_end_times_seconds[11]).toBe(1.2);
  });
});
