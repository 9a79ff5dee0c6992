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
 * voice (Adam) checks the voice colour's signal path too: a small pitch shift keeps the words.
 */
const neural = piperModelAvailable(PIPER_VOICES_DIR);

(neural ? it : it.skip)('the neural model, as its own speaker and coloured to a deep voice, stays intelligible to an offline recogniser', async () => {
  const { stdout } = await run(process.execPath, [path.join(ROOT, 'bench/quality/bench.mjs'), '--sentences', '5', '--engines', 'neural,neural-coloured', '--voice', 'Adam', '--json'], {
    env: { ...process.env, PIPER_VOICES_DIR },
    timeout: 900_000,
    maxBuffer: 16 << 20,
  });
  const results = JSON.parse(stdout) as QualityResult[];
  const byEngine = Object.fromEntries(results.map((r) => [r.engine, r]));
  expect(byEngine.neural).toMatchObject({ voice: 'Joe', sentences: 5 });
  expect(byEngine['neural-coloured']).toMatchObject({ voice: 'Adam', sentences: 5 });
  expect(byEngine.neural!.wer).toBeLessThan(0.5);
  expect(byEngine['neural-coloured']!.wer).toBeLessThan(0.6);
}, 900_000);
