import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

const ROOT = path.resolve(__dirname, '../..');
/** The virtual environment the official Python SDK is installed in (never a global install). */
export const SDK_VENV = path.join(ROOT, '.stack/sdk-venv');
const REQUIREMENTS = path.join(__dirname, 'requirements.txt');
const SCRIPTS = path.join(__dirname, 'python');
const PYTHON = path.join(SDK_VENV, 'bin/python');

/** The pinned `elevenlabs` version (requirements.txt pins it and every dependency). */
export const PYTHON_SDK_VERSION = /^elevenlabs==(.+)$/m.exec(readFileSync(REQUIREMENTS, 'utf8'))?.[1] ?? '';

/**
 * Creates `.stack/sdk-venv` with `python3 -m venv` and installs requirements.txt into it with pip,
 * unless it already holds exactly the pinned SDK. Test files may call this at the same time: the
 * check and the install run under one `flock` on a lock file, so one installs and the others wait.
 * (Debian's `python3-venv` package provides `venv` with `ensurepip`; scripts/lib.mjs installs it.)
 */
export async function ensurePythonSdk(): Promise<void> {
  const check = `"${PYTHON}" -c "import importlib.metadata as m, sys; sys.exit(m.version('elevenlabs') != '${PYTHON_SDK_VERSION}')"`;
  const install = [
    `rm -rf "${SDK_VENV}"`,
    `python3 -m venv "${SDK_VENV}"`,
    `"${SDK_VENV}/bin/pip" install --disable-pip-version-check --no-input -q -r "${REQUIREMENTS}"`,
  ].join(' && ');
  await run('flock', [`${SDK_VENV}.lock`, 'sh', '-c', `${check} 2>/dev/null || { ${install}; }`], { timeout: 600_000 });
  const { stdout } = await run(PYTHON, ['-c', 'import importlib.metadata as m; print(m.version("elevenlabs"))']);
  if (stdout.trim() !== PYTHON_SDK_VERSION) throw new Error(`the Python SDK in ${SDK_VENV} is ${stdout.trim()}, not ${PYTHON_SDK_VERSION}`);
}

/** One step's outcome as tests/sdk/python/sdk_steps.py reports it. */
export type PythonStep =
  | { ok: true; type: string; item_types: string[] | null; result: unknown }
  | { ok: false; error: string; status_code?: number; body?: unknown; message?: string; trace?: string };

/** The bytes an SDK audio iterator yielded, as sdk_steps.audio reports them. */
export interface PythonAudio {
  base64: string;
  bytes: number;
  chunks: number;
  sha256: string;
}

/**
 * Runs `tests/sdk/python/<script>.py` with the official SDK against `baseUrl` with `apiKey`, the
 * parameters as JSON; resolves to its steps by name.
 */
export interface PythonConnection {
  baseUrl: string;
  apiKey: string;
  /** The platform behind TLS (tls-proxy.ts), for the SDK's WebSocket helper, and the certificate to trust. */
  tls: { baseUrl: string; certFile: string };
}

export async function runPythonSdk(script: string, connection: PythonConnection, parameters: unknown = {}): Promise<Record<string, PythonStep>> {
  const { stdout } = await run(PYTHON, [path.join(SCRIPTS, `${script}.py`), JSON.stringify(parameters)], {
    env: {
      PATH: process.env.PATH ?? '',
      ELEVENLABS_API_KEY: connection.apiKey,
      ELEVENLABS_BASE_URL: connection.baseUrl,
      ELEVENLABS_TLS_BASE_URL: connection.tls.baseUrl,
      SSL_CERT_FILE: connection.tls.certFile,
      PYTHONDONTWRITEBYTECODE: '1',
    },
    maxBuffer: 64 * 1024 * 1024,
    timeout: 180_000,
  });
  return JSON.parse(stdout) as Record<string, PythonStep>;
}

/** The step's result; a failed step fails the test with what the SDK raised. */
export function stepResult<T = Record<string, unknown>>(steps: Record<string, PythonStep>, name: string): T {
  const step = steps[name];
  if (!step) throw new Error(`the Python script reported no step ${name}`);
  if (!step.ok) throw new Error(`Python SDK step ${name} failed: ${JSON.stringify(step, null, 2)}`);
  return step.result as T;
}

export function audioBytes(result: PythonAudio): Buffer {
  return Buffer.from(result.base64, 'base64');
}
