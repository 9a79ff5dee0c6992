/**
 * Languages the eSpeak NG model speaks, keyed by the tag a client sends in `language_code`
 * (ISO 639-1, or a BCP 47 tag where eSpeak NG has that regional variant). `espeak` is the
 * eSpeak NG voice that reads the text.
 */
export interface Language {
  /** Canonical tag we answer with (lower-case language, upper-case region). */
  id: string;
  name: string;
  espeak: string;
}

const TABLE: Language[] = [
  { id: 'en', name: 'English', espeak: 'en-us' },
  { id: 'en-US', name: 'English (United States)', espeak: 'en-us' },
  { id: 'en-GB', name: 'English (United Kingdom)', espeak: 'en-gb' },
  { id: 'en-GB-scotland', name: 'English (Scotland)', espeak: 'en-gb-scotland' },
  { id: 'en-029', name: 'English (Caribbean)', espeak: 'en-029' },
  { id: 'de', name: 'German', espeak: 'de' },
  { id: 'fr', name: 'French', espeak: 'fr-fr' },
  { id: 'fr-FR', name: 'French (France)', espeak: 'fr-fr' },
  { id: 'fr-BE', name: 'French (Belgium)', espeak: 'fr-be' },
  { id: 'fr-CH', name: 'French (Switzerland)', espeak: 'fr-ch' },
  { id: 'es', name: 'Spanish', espeak: 'es' },
  { id: 'es-ES', name: 'Spanish (Spain)', espeak: 'es' },
  { id: 'es-419', name: 'Spanish (Latin America)', espeak: 'es-419' },
  { id: 'es-MX', name: 'Spanish (Mexico)', espeak: 'es-419' },
  { id: 'it', name: 'Italian', espeak: 'it' },
  { id: 'pt', name: 'Portuguese', espeak: 'pt' },
  { id: 'pt-PT', name: 'Portuguese (Portugal)', espeak: 'pt' },
  { id: 'pt-BR', name: 'Portuguese (Brazil)', espeak: 'pt-br' },
  { id: 'nl', name: 'Dutch', espeak: 'nl' },
  { id: 'sv', name: 'Swedish', espeak: 'sv' },
  { id: 'da', name: 'Danish', espeak: 'da' },
  { id: 'nb', name: 'Norwegian Bokmål', espeak: 'nb' },
  { id: 'no', name: 'Norwegian', espeak: 'nb' },
  { id: 'fi', name: 'Finnish', espeak: 'fi' },
  { id: 'pl', name: 'Polish', espeak: 'pl' },
  { id: 'cs', name: 'Czech', espeak: 'cs' },
  { id: 'sk', name: 'Slovak', espeak: 'sk' },
  { id: 'hu', name: 'Hungarian', espeak: 'hu' },
  { id: 'ro', name: 'Romanian', espeak: 'ro' },
  { id: 'bg', name: 'Bulgarian', espeak: 'bg' },
  { id: 'hr', name: 'Croatian', espeak: 'hr' },
  { id: 'sr', name: 'Serbian', espeak: 'sr' },
  { id: 'sl', name: 'Slovenian', espeak: 'sl' },
  { id: 'el', name: 'Greek', espeak: 'el' },
  { id: 'tr', name: 'Turkish', espeak: 'tr' },
  { id: 'ru', name: 'Russian', espeak: 'ru' },
  { id: 'uk', name: 'Ukrainian', espeak: 'uk' },
  { id: 'ar', name: 'Arabic', espeak: 'ar' },
  { id: 'he', name: 'Hebrew', espeak: 'he' },
  { id: 'fa', name: 'Persian', espeak: 'fa' },
  { id: 'hi', name: 'Hindi', espeak: 'hi' },
  { id: 'bn', name: 'Bengali', espeak: 'bn' },
  { id: 'ta', name: 'Tamil', espeak: 'ta' },
  { id: 'ur', name: 'Urdu', espeak: 'ur' },
  { id: 'id', name: 'Indonesian', espeak: 'id' },
  { id: 'ms', name: 'Malay', espeak: 'ms' },
  { id: 'vi', name: 'Vietnamese', espeak: 'vi' },
  { id: 'ja', name: 'Japanese', espeak: 'ja' },
  { id: 'ko', name: 'Korean', espeak: 'ko' },
  { id: 'zh', name: 'Chinese (Mandarin)', espeak: 'cmn' },
  { id: 'zh-CN', name: 'Chinese (Mandarin, China)', espeak: 'cmn' },
  { id: 'yue', name: 'Chinese (Cantonese)', espeak: 'yue' },
  { id: 'ca', name: 'Catalan', espeak: 'ca' },
  { id: 'eu', name: 'Basque', espeak: 'eu' },
  { id: 'cy', name: 'Welsh', espeak: 'cy' },
  { id: 'ga', name: 'Irish', espeak: 'ga' },
  { id: 'is', name: 'Icelandic', espeak: 'is' },
  { id: 'et', name: 'Estonian', espeak: 'et' },
  { id: 'lv', name: 'Latvian', espeak: 'lv' },
  { id: 'lt', name: 'Lithuanian', espeak: 'lt' },
  { id: 'af', name: 'Afrikaans', espeak: 'af' },
  { id: 'sw', name: 'Swahili', espeak: 'sw' },
];

const BY_TAG = new Map(TABLE.map((l) => [l.id.toLowerCase(), l]));

/** Every language the engine speaks, as listed by `GET /v1/models`. */
export const LANGUAGES: readonly Language[] = TABLE;

const TAG = /^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8}){0,3}$/;

/**
 * Resolves a client's `language_code`. A regional tag the engine has no variant for falls back to
 * its language (`en-AU` → English), because that is what the client would hear from a person;
 * a language the engine does not speak is `null` (the caller answers 400).
 */
export function resolveLanguage(code: string): Language | null {
  if (code.length > 35 || !TAG.test(code)) return null;
  const normalized = code.replace(/_/g, '-').toLowerCase();
  const exact = BY_TAG.get(normalized);
  if (exact) return exact;
  const primary = normalized.split('-')[0] ?? '';
  return BY_TAG.get(primary) ?? null;
}

/**
 * The language a tag, an eSpeak NG voice or a Piper language code belongs to, without its region
 * (`en-GB`, `en-gb-scotland`, `en_US` → `en`; eSpeak's `cmn` → `zh`): what decides whether a
 * neural voice speaks a request's language.
 */
export function languageFamily(tagOrVoice: string): string {
  const tag = tagOrVoice.replace(/_/g, '-').toLowerCase();
  const known = BY_TAG.get(tag) ?? TABLE.find((l) => l.espeak === tag);
  return (known?.id ?? tag).split('-')[0]!.toLowerCase();
}
