import type { PhonemeAlphabet } from './rules';

/**
 * A phoneme rule's phonemes in the two forms the engines take: IPA (the neural model's input, which
 * it was trained on from eSpeak NG's IPA) and eSpeak NG's own phoneme mnemonics (Kirshenbaum-like
 * ASCII, spoken from `[[…]]` in its input). CMU ARPAbet goes to IPA first, then on like IPA.
 */
export interface SpokenPhonemes {
  ipa: string;
  espeak: string;
}

export class PhonemeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PhonemeError';
  }
}

/**
 * IPA symbols → eSpeak NG's English phoneme mnemonics (checked with `espeak-ng --ipa -- "[[…]]"`,
 * which prints a mnemonic back as IPA). Longest symbols are tried first, so `eɪ` is one diphthong.
 */
const IPA_TO_ESPEAK: ReadonlyArray<readonly [string, string]> = [
  ['tʃ', 'tS'],
  ['t͡ʃ', 'tS'],
  ['ʧ', 'tS'],
  ['dʒ', 'dZ'],
  ['d͡ʒ', 'dZ'],
  ['ʤ', 'dZ'],
  ['eɪ', 'eI'],
  ['aɪ', 'aI'],
  ['ɔɪ', 'OI'],
  ['aʊ', 'aU'],
  ['oʊ', 'oU'],
  ['əʊ', 'oU'],
  ['ɪə', 'I@'],
  ['ʊə', 'U@'],
  ['eə', 'e@'],
  ['ɛə', 'e@'],
  ['iː', 'i:'],
  ['uː', 'u:'],
  ['ɑː', 'A:'],
  ['ɔː', 'O:'],
  ['ɜː', '3:'],
  ['ɝ', '3:'],
  ['ɚ', '3'],
  ['æ', 'a'],
  ['a', 'a'],
  ['ɑ', 'A:'],
  ['ɒ', '0'],
  ['ɔ', 'O:'],
  ['ɛ', 'E'],
  ['e', 'E'],
  ['ɪ', 'I'],
  ['i', 'i'],
  ['ʊ', 'U'],
  ['u', 'u:'],
  ['ʌ', 'V'],
  ['ə', '@'],
  ['ɐ', '@'],
  ['ɜ', '3:'],
  ['o', 'oU'],
  ['p', 'p'],
  ['b', 'b'],
  ['t', 't'],
  ['d', 'd'],
  ['k', 'k'],
  ['ɡ', 'g'],
  ['g', 'g'],
  ['f', 'f'],
  ['v', 'v'],
  ['θ', 'T'],
  ['ð', 'D'],
  ['s', 's'],
  ['z', 'z'],
  ['ʃ', 'S'],
  ['ʒ', 'Z'],
  ['h', 'h'],
  ['m', 'm'],
  ['n', 'n'],
  ['ŋ', 'N'],
  ['l', 'l'],
  ['ɫ', 'l'],
  ['ɹ', 'r'],
  ['r', 'r'],
  ['ɾ', 't'],
  ['w', 'w'],
  ['ʍ', 'w'],
  ['j', 'j'],
  ['x', 'x'],
  ['ʔ', 't'],
  ['ˈ', "'"],
  ['ˌ', ','],
  ["'", "'"],
  [',', ','],
  ['ː', ':'],
  [' ', ' '],
  ['.', ''],
];

/** CMU ARPAbet (the CMU Pronouncing Dictionary's 39 phonemes) → IPA; vowels carry a stress digit. */
const ARPABET_TO_IPA: Readonly<Record<string, string>> = {
  AA: 'ɑː',
  AE: 'æ',
  AH: 'ʌ',
  AO: 'ɔː',
  AW: 'aʊ',
  AY: 'aɪ',
  EH: 'ɛ',
  ER: 'ɜː',
  EY: 'eɪ',
  IH: 'ɪ',
  IY: 'iː',
  OW: 'oʊ',
  OY: 'ɔɪ',
  UH: 'ʊ',
  UW: 'uː',
  B: 'b',
  CH: 'tʃ',
  D: 'd',
  DH: 'ð',
  F: 'f',
  G: 'ɡ',
  HH: 'h',
  JH: 'dʒ',
  K: 'k',
  L: 'l',
  M: 'm',
  N: 'n',
  NG: 'ŋ',
  P: 'p',
  R: 'ɹ',
  S: 's',
  SH: 'ʃ',
  T: 't',
  TH: 'θ',
  V: 'v',
  W: 'w',
  Y: 'j',
  Z: 'z',
  ZH: 'ʒ',
};
/** Unstressed AH and ER are the reduced vowels. */
const ARPABET_UNSTRESSED: Readonly<Record<string, string>> = { AH: 'ə', ER: 'ɚ' };

const quoted = (s: string) => JSON.stringify(s.slice(0, 20));

/** IPA as written in rules and lexicons: `/…/` or `[…]` around it are transcription marks, not phonemes. */
function bareIpa(ipa: string): string {
  return ipa
    .normalize('NFC')
    .trim()
    .replace(/^[/[]|[/\]]$/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** IPA → eSpeak NG mnemonics; a symbol outside the table is a `PhonemeError` naming it. */
export function ipaToEspeak(ipa: string): string {
  const symbols = [...bareIpa(ipa)];
  let out = '';
  for (let i = 0; i < symbols.length;) {
    const match = IPA_TO_ESPEAK.find(([from]) => symbols.slice(i, i + [...from].length).join('') === from);
    if (!match) throw new PhonemeError(`IPA symbol ${quoted(symbols[i]!)} is not one this engine can say`);
    out += match[1];
    i += [...match[0]].length;
  }
  if (!/[^\s',:]/.test(out)) throw new PhonemeError('the phoneme string has no phonemes');
  return out;
}

/** CMU ARPAbet (`T AH0 M EY1 T OW2`) → IPA, stress marks before the stressed vowel. */
export function arpabetToIpa(arpabet: string): string {
  const tokens = arpabet.trim().toUpperCase().split(/\s+/).filter(Boolean);
  if (tokens.length === 0) throw new PhonemeError('the phoneme string has no phonemes');
  return tokens
    .map((token) => {
      const m = /^([A-Z]{1,2})([012])?$/.exec(token);
      const ipa = m ? ARPABET_TO_IPA[m[1]!] : undefined;
      if (!m || !ipa) throw new PhonemeError(`ARPAbet symbol ${quoted(token)} is not one of CMU's 39`);
      const stress = m[2];
      if (stress === '0') return ARPABET_UNSTRESSED[m[1]!] ?? ipa;
      return (stress === '1' ? 'ˈ' : stress === '2' ? 'ˌ' : '') + ipa;
    })
    .join('');
}

/** A rule's phonemes in both engines' forms; a symbol neither alphabet has is a `PhonemeError`. */
export function spokenPhonemes(phoneme: string, alphabet: PhonemeAlphabet): SpokenPhonemes {
  const ipa = alphabet === 'cmu-arpabet' ? arpabetToIpa(phoneme) : bareIpa(phoneme);
  return { ipa, espeak: ipaToEspeak(ipa) };
}
