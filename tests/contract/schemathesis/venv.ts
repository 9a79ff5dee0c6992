import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

const ROOT = path.resolve(__dirname, '../../..');
/** The virtual environment schemathesis is installed in (never a global install). */
const VENV = path.join(ROOT, '.stack/schemathesis-venv');
const REQUIREMENTS = path.join(__dirname, 'requirements.txt');
/** The schemathesis command line (`st`). */
export const SCHEMATHESIS = path.join(VENV, 'bin/st');

/** The pinned schemathesis version (requirements.txt pins it and every dependency). */
export const SCHEMATHESIS_VERSION = /^schemathesis==(.+)$/m.exec(readFileSync(REQUIREMENTS, 'utf8'))?.[1] ?? '';

/**
 * Creates `.stack/schemathesis-venv` with `python3 -m venv` and installs requirements.txt into it with pip
 * from PyPI, unless it already holds exactly the pinned schemathesis; under one `flock`, so concurrent test
 * files install once (the same way tests/sdk/python-sdk.ts makes the Python SDK's environment).
 */
export async function ensureSchemathesis(): Promise<void> {
  const python = path.join(VENV, 'bin/python');
  const check = `"${python}" -c "import importlib.metadata as m, sys; sys.exit(m.version('schemathesis') != '${SCHEMATHESIS_VERSION}')"`;
  const install = [
    `rm -rf "${VENV}"`,
    `python3 -m venv "${VENV}"`,
    `"${VENV}/bin/pip" install --disable-pip-version-check --no-input -q -r "${REQUIREMENTS}"`,
  ].join(' && ');
  await run('flock', [`${VENV}.lock`, 'sh', '-c', `${check} 2>/dev/null || { ${install}; }`], { timeout: 600_000 });
  const { stdout } = await run(SCHEMATHESIS, ['--version']);
  if (!stdout.includes(SCHEMATHESIS_VERSION)) throw new Error(`schemathesis in ${VENV} is ${stdout.trim()}, not ${SCHEMATHESIS_VERSION}`);
}
