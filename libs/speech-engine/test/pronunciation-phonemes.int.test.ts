import { compilePronunciation, phonemeIds, pronouncePiece } from '../src';

/**
 * The neural model's input with a pronunciation dictionary: a phoneme rule's IPA reaches the model's
 * phoneme ids as written (not through eSpeak NG), the rest of the piece through eSpeak NG as before.
 * Runs the real eSpeak NG (hence integration).
 */
const symbols = [...'^$_ ,.ˈˌəɪeɑːtmoʊpsɹaʊndhlɛwɔɜɡzkbviʌ'];
const config = {
  audio: { sample_rate: 22050 },
  espeak: { voice: 'en-us' },
  inference: { noise_scale: 0.667, length_scale: 1, noise_w: 0.8 },
  phoneme_id_map: Object.fromEntries(symbols.map((s, i) => [s, [i + 1]])),
};
const symbolOf = (id: number) => symbols[id - 1];

describe('a dictionary on the neural model', () => {
  it('puts a phoneme rule’s IPA into the phoneme ids as it is and phonemises the rest with eSpeak NG', async () => {
    const rules = compilePronunciation([
      { type: 'phoneme', string_to_replace: 'tomato', phoneme: '/təˈmɑːtoʊ/', alphabet: 'ipa' },
    ]);
    const plain = (await phonemeIds('A tomato.', config)).map(symbolOf).join('');
    const said = (await phonemeIds(pronouncePiece('A tomato.', rules), config)).map(symbolOf).join('');
    const pads = /_/g;
    expect(said.replace(pads, '')).toContain('təˈmɑːtoʊ');
    expect(plain.replace(pads, '')).not.toContain('təˈmɑːtoʊ');
    // Without a rule that matches, the segments give exactly the ids the text gives.
    expect(await phonemeIds(pronouncePiece('A potato.', rules), config)).toEqual(await phonemeIds('A potato.', config));
  });
});
