// The offline recogniser of the quality meter: PocketSphinx from PyPI (its wheel carries the English
// model, so nothing else is downloaded), in the virtual environment .stack/quality-venv, which this
// module creates with pinned versions (requirements.txt) on first use.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
export const QUALITY_VENV = path.join(root, '.stack/quality-venv');
const PYTHON = path.join(QUALITY_VENV, 'bin/python');
const REQUIREMENTS = path.join(here, 'requirements.txt');
const VERSION = /^pocketsphinx==(.+)$/m.exec(fs.readFileSync(REQUIREMENTS, 'utf8'))?.[1] ?? '';

/**
 * Creates the venv and installs requirements.txt unless it already holds the pinned PocketSphinx.
 * Callers at the same time serialise on one `flock`: one installs, the others wait.
 */
export async function ensureRecogniser() {
  const check = `"${PYTHON}" -c "import importlib.metadata as m, sys; sys.exit(m.version('pocketsphinx') != '${VERSION}')"`;
  const install = [
    `rm -rf "${QUALITY_VENV}"`,
    `python3 -m venv "${QUALITY_VENV}"`,
    `"${QUALITY_VENV}/bin/pip" install --disable-pip-version-check --no-input -q -r "${REQUIREMENTS}"`,
  ].join(' && ');
  fs.mkdirSync(path.dirname(QUALITY_VENV), { recursive: true });
  await run('flock', [`${QUALITY_VENV}.lock`, 'sh', '-c', `${check} 2>/dev/null || { ${install}; }`], {
    timeout: 600_000,
  });
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
