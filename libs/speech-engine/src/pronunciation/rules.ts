/**
 * A pronunciation rule as a dictionary version holds it and a synthesis job carries it (the hosted
 * API's shape, docs/speech.md "Pronunciation dictionaries"): an alias replaces the matched text with
 * other text; a phoneme rule has the engine say the given phonemes instead.
 */
export type PronunciationRule = AliasRule | PhonemeRule;

interface RuleMatch {
  string_to_replace: string;
  /** Default true: "Tomato" does not match a rule for "tomato". */
  case_sensitive?: boolean | null;
  /** Default true: the match is a whole word (no letter or digit on either side). */
  word_boundaries?: boolean | null;
}

export interface AliasRule extends RuleMatch {
  type: 'alias';
  alias: string;
}

export interface PhonemeRule extends RuleMatch {
  type: 'phoneme';
  phoneme: string;
  alphabet: PhonemeAlphabet;
}

/** The phoneme alphabets a rule may use: IPA and CMU ARPAbet, as the hosted API. */
export const PHONEME_ALPHABETS = ['ipa', 'cmu-arpabet'] as const;
export type PhonemeAlphabet = (typeof PHONEME_ALPHABETS)[number];
