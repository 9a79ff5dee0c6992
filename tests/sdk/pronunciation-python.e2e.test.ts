import { PREMADE_VOICES } from '@platform/speech-engine';
import { audioBytes, PYTHON_SDK_VERSION, stepResult, type PythonAudio, type PythonStep } from './python-sdk';
import { startSdkPlatform, type SdkCaller, type SdkPlatform } from './sdk-platform';

/**
 * Pronunciation dictionaries through the official Python SDK (docs/speech.md, "Pronunciation
 * dictionaries"): made from a PLS lexicon and from rules, listed a page at a time, read, downloaded
 * as PLS, versioned by rule changes, archived; and applied by `text_to_speech.convert` through
 * `pronunciation_dictionary_locators`, with the alignment still of the text sent. Another account's
 * dictionary is 404.
 */
const TEXT = 'The UN grows a tomato for TTS.';
const PLS = `<?xml version="1.0" encoding="UTF-8"?>
<lexicon version="1.0" xmlns="http://www.w3.org/2005/01/pronunciation-lexicon" alphabet="ipa" xml:lang="en-US">
  <lexeme><grapheme>TTS</grapheme><alias>text to speech</alias></lexeme>
  <lexeme><grapheme>grows</grapheme><phoneme>/ɡɹˈaʊz/</phoneme></lexeme>
</lexicon>
`;

let sdk: SdkPlatform;
let me: SdkCaller;
let otherId: string;
let steps: Record<string, PythonStep>;

beforeAll(async () => {
  sdk = await startSdkPlatform({ free: { character_limit: 100_000 } });
  me = await sdk.newCaller('Dictionaries');
  const other = await sdk.newCaller('Someone else');
  const made = await fetch(`${sdk.platform.publicUrl}/v1/pronunciation-dictionaries/add-from-rules`, {
    method: 'POST',
    headers: { 'xi-api-key': other.key, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Theirs', rules: [{ type: 'alias', string_to_replace: 'UN', alias: 'you en' }] }),
  });
  expect(made.status).toBe(200);
  otherId = ((await made.json()) as { id: string }).id;
  steps = await me.python('pronunciation', {
    voice_id: PREMADE_VOICES[0]!.voice_id,
    text: TEXT,
    pls: PLS,
    other_id: otherId,
  });
}, 600_000);

afterAll(async () => {
  await sdk?.stop();
}, 30_000);

interface Added {
  id: string;
  version_id: string;
  version_rules_num: number;
}

describe(`pronunciation dictionaries with the official Python SDK (elevenlabs ${PYTHON_SDK_VERSION})`, () => {
  it('create_from_file reads a PLS lexicon; create_from_rules takes alias and ARPAbet phoneme rules', () => {
    expect(stepResult<Added>(steps, 'from_file')).toMatchObject({ name: 'From a lexicon', version_rules_num: 2 });
    expect(stepResult<Added>(steps, 'from_rules')).toMatchObject({ name: 'From rules', version_rules_num: 2 });
  });

  it('list pages with next_cursor and has_more; get has the latest version’s rules', () => {
    const first = stepResult<{ pronunciation_dictionaries: { id: string }[]; has_more: boolean }>(steps, 'list');
    const next = stepResult<{ pronunciation_dictionaries: { id: string }[]; has_more: boolean }>(steps, 'list_next');
    expect(first.has_more).toBe(true);
    expect(next.has_more).toBe(false);
    const ids = [...first.pronunciation_dictionaries, ...next.pronunciation_dictionaries].map((d) => d.id).sort();
    const made = [stepResult<Added>(steps, 'from_file').id, stepResult<Added>(steps, 'from_rules').id].sort();
    expect(ids).toEqual(made);
    expect(stepResult(steps, 'get')).toMatchObject({
      rules: [
        { type: 'alias', string_to_replace: 'TTS', alias: 'text to speech' },
        { type: 'phoneme', string_to_replace: 'grows', phoneme: '/ɡɹˈaʊz/', alphabet: 'ipa' },
      ],
    });
  });

  it('download gives the version as a PLS lexicon with its rules', () => {
    const pls = audioBytes(stepResult<PythonAudio>(steps, 'download')).toString('utf8');
    expect(pls).toContain('<lexicon');
    expect(pls).toContain('<grapheme>TTS</grapheme>');
    expect(pls).toContain('<alias>text to speech</alias>');
    expect(pls).toContain('<phoneme>/ɡɹˈaʊz/</phoneme>');
  });

  it('convert with the locators says the text differently, and longer (the aliases are longer than their words)', () => {
    const plain = stepResult<PythonAudio>(steps, 'plain');
    const said = stepResult<PythonAudio>(steps, 'with_dictionaries');
    expect(said.sha256).not.toBe(plain.sha256);
    expect(said.bytes).toBeGreaterThan(plain.bytes * 1.2);
  });

  it('convert_with_timestamps aligns the text that was sent, not the aliases', () => {
    const result = stepResult<{ alignment: { characters: string[]; character_end_times_seconds: number[] } }>(
      steps,
      'timestamps',
    );
    expect(result.alignment.characters.join('')).toBe(TEXT);
    const ends = result.alignment.character_end_times_seconds;
    expect(ends.every((t, i) => i === 0 || t >= ends[i - 1]!)).toBe(true);
  });

  it('another account’s dictionary is 404 to get and to synthesise with', () => {
    expect(steps.foreign).toMatchObject({ ok: false, status_code: 404 });
    expect(steps.get_foreign).toMatchObject({ ok: false, status_code: 404 });
  });

  it('adding and removing rules makes new versions; archiving hides the dictionary from the list', () => {
    const created = stepResult<Added>(steps, 'from_rules');
    const added = stepResult<Added>(steps, 'add_rules');
    const removed = stepResult<Added>(steps, 'remove_rules');
    expect(added).toMatchObject({ id: created.id, version_rules_num: 3 });
    expect(removed).toMatchObject({ id: created.id, version_rules_num: 2 });
    expect(new Set([created.version_id, added.version_id, removed.version_id]).size).toBe(3);
    const after = stepResult<{ latest_version_id: string; rules: { string_to_replace: string }[] }>(steps, 'get_after');
    expect(after.latest_version_id).toBe(removed.version_id);
    expect(after.rules.map((r) => r.string_to_replace)).toEqual(['tomato', 'WHO']);
    expect(stepResult(steps, 'archive')).toMatchObject({ archived_time_unix: expect.any(Number) });
    const listed = stepResult<{ pronunciation_dictionaries: { id: string }[] }>(steps, 'list_after_archive');
    expect(listed.pronunciation_dictionaries.map((d) => d.id)).toEqual([created.id]);
  });
});
