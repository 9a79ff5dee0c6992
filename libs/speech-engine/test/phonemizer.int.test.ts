import { execFile, execFileSync } from 'node:child_process';
import { clauseIpa } from '../src/phonemizer';

/** The command line's own answer, as the neural model was fed before the helper. */
const program = (text: string, voice = 'en-us') =>
  new Promise<string>((resolve, reject) =>
    execFile('espeak-ng', ['-q', '--ipa', '-b', '1', '-v', voice, '--', text], (err, out) =>
      err ? reject(err) : resolve(out.replace(/\s+/g, ' ').trim()),
    ),
  );

/** This process's phonemizer helpers (python/espeak_phonemes.py) running. */
const helperPids = () => {
  try {
    return execFileSync('pgrep', ['-P', String(process.pid), '-f', 'espeak_phonemes.py'], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
};

const CLAUSES = [
  'Hello there',
  'Dr Smith paid $3.50 for 2 apples (and a pear) on 12/05/2024',
  'The birch canoe slid on the smooth planks',
  'naïve café Zoë — 😀',
  'read the record; then record the read',
  'a\ttab and a\nnewline',
];

describe('eSpeak NG phonemes from the long-lived helper', () => {
  // Jest gives each test file its modules anew: helpers of files run before in this process are not ours.
  let earlier: Set<number>;
  beforeAll(() => {
    earlier = new Set(helperPids());
  });
  const ours = () => helperPids().filter((pid) => !earlier.has(pid));

  it("gives the command line's IPA, clause for clause, in English and another language", async () => {
    for (const clause of CLAUSES)
      expect({ clause, ipa: await clauseIpa(clause, 'en-us') }).toEqual({ clause, ipa: await program(clause) });
    expect(await clauseIpa('Bonjour tout le monde', 'fr')).toBe(await program('Bonjour tout le monde', 'fr'));
    expect(ours()).toHaveLength(1);
  });

  it('answers many requests at once, each with its own clause', async () => {
    const asked = Array.from({ length: 60 }, (_, i) => `${CLAUSES[i % CLAUSES.length]} ${i}`);
    const answers = await Promise.all(asked.map((c, i) => clauseIpa(c, i % 2 ? 'en-us' : 'en-gb')));
    const expected = await Promise.all(asked.map((c, i) => program(c, i % 2 ? 'en-us' : 'en-gb')));
    expect(answers).toEqual(expected);
  });

  it('answers a voice the library does not know as the command line does (which it then runs), and keeps answering', async () => {
    expect(await clauseIpa('hello', 'no-such-voice')).toBe(await program('hello', 'no-such-voice'));
    expect(await clauseIpa('Hello there', 'en-us')).toBe(await program('Hello there'));
  });

  it('loses no request when the helper dies under them: they go to the command line, and a new helper starts', async () => {
    await clauseIpa('warm', 'en-us');
    const [pid] = ours();
    expect(pid).toBeDefined();
    const asked = Array.from({ length: 20 }, (_, i) => `${CLAUSES[2]} ${i}`);
    const answers = Promise.all(asked.map((c) => clauseIpa(c, 'en-us')));
    process.kill(pid!, 'SIGKILL');
    expect(await answers).toEqual(await Promise.all(asked.map((c) => program(c))));
    expect(await clauseIpa('Hello there', 'en-us')).toBe(await program('Hello there'));
    const now = ours();
    expect(now).toHaveLength(1);
    expect(now[0]).not.toBe(pid);
  });

  it('runs another program when one is named (ESPEAK_BINARY), and fails as it fails', async () => {
    await expect(clauseIpa('hello', 'en-us', '/nonexistent/espeak-ng')).rejects.toThrow(/ENOENT/);
  });
});
