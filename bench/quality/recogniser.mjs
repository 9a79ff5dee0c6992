// The offline recogniser of the quality meter: PocketSphinx from PyPI (its wheel carries the English
// model, so nothing else is downloaded), in the virtual environment .stack/quality-venv, which this
// module creates with pinned versions (requirements.txt) on first use.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ensurePythonVenv } from '../../scripts/lib.mjs';

const run = promisify(execFile);
const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
export const QUALITY_VENV = path.join(root, '.stack/quality-venv');
const PYTHON = path.join(QUALITY_VENV, 'bin/python');
const REQUIREMENTS = path.join(here, 'requirements.txt');

/** Creates the venv with the pinned PocketSphinx unless it holds it already (scripts/lib.mjs). */
export async function ensureRecogniser() {
  ensurePythonVenv(QUALITY_VENV, REQUIREMENTS, 'pocketsphinx');
}

/** Transcribes 16 kHz mono 16-bit PCM buffers, one hypothesis per buffer. */
export async function recognise(pcm16k) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quality-'));
  try {
    const files = pcm16k.map((pcm, i) => {
      const file = path.join(dir, `${i}.raw`);
      fs.writeFileSync(file, pcm);
      return file;
    });
    const { stdout } = await run(PYTHON, [path.join(here, 'decode.py'), ...files], {
      timeout: 600_000,
      maxBuffer: 16 << 20,
    });
    return JSON.parse(stdout);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
