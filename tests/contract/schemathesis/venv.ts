import path from 'node:path';
import { ensureVenv } from '../../support/python-venv';

const ROOT = path.resolve(__dirname, '../../..');
/** The virtual environment schemathesis is installed in (never a global install). */
const VENV = path.join(ROOT, '.stack/schemathesis-venv');
/** schemathesis and every dependency, pinned. */
const REQUIREMENTS = path.join(__dirname, 'requirements.txt');
/** The schemathesis command line (`st`). */
export const SCHEMATHESIS = path.join(VENV, 'bin/st');

/** Creates `.stack/schemathesis-venv` with the pinned schemathesis unless it is there already. */
export function ensureSchemathesis(): Promise<void> {
  return ensureVenv(VENV, REQUIREMENTS, 'schemathesis');
}
