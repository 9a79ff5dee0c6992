import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { piperModelAvailable } from '@platform/speech-engine';
import { PIPER_VOICES_DIR } from './support/speech-stack';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');

interface QualityResult {
  engine: string;
  voice: string;
  sentences: number;
  wer: number;
  hypotheses: string[];
}

/**
 * A floor under the neural model's intelligibility: the quality meter (bench/quality, PocketSphinx's
 * English model in .stack/quality-venv, which it creates on first run) over five Harvard sentences.
 * Bounds are loose (the neural speaker measures about 35 % word error, eSpeak NG 90-100 %, noise 100 %):
 * they catch a neural path that regressed into noise or garbled speech, not a small change. A deep
 * voice (Adam, a small pitch shift) and a high one (Rachel, pitch ×2.4 and formants ×1.25) check the
 * voice colour's signal path too: both keep the words (about 31 % and 41-45 % measured; the Rubber
 * Band colour this replaced measured 97.5 % for Rachel).
 */
const neural = piperModelAvailable(PIPER_VOICES_DIR);

async function quality(engines: string, voice: string): Promise<Record<string, QualityResult>> {
  const { stdout } = await run(
    process.execPath,
    [path.join(ROOT, 'bench/quality/bench.mjs'), '--sentences', '5', '--engines', engines, '--voice', voice, '--json'],
    {
      env: { ...process.env, PIPER_VOICES_DIR },
      timeout: 900_000,
      maxBuffer: 16 << 20,
    },
  );
  const results = JSON.parse(stdout) as QualityResult[];
  return Object.fromEntries(results.map((r) => [r.engine, r]));
}

(neural ? it : it.skip)(
  'the neural model, as its own speaker and coloured to a deep and a high voice, stays intelligible to an offline recogniser',
  async () => {
    const deep = await quality('neural,neural-coloured', 'Adam');
    expect(deep.neural).toMatchObject({ voice: 'Joe', sentences: 5 });
    expect(deep['neural-coloured']).toMatchObject({ voice: 'Adam', sentences: 5 });
    expect(deep.neural!.wer).toBeLessThan(0.5);
    expect(deep['neural-coloured']!.wer).toBeLessThan(0.6);
    const high = await quality('neural-coloured', 'Rachel');
    expect(high['neural-coloured']).toMatchObject({ voice: 'Rachel', sentences: 5 });
    expect(high['neural-coloured']!.wer).toBeLessThan(0.75);
  },
  900_000,
);
