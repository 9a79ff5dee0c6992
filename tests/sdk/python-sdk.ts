import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { ensureVenv, pinnedVersion } from '../support/python-venv';

const run = promisify(execFile);

const ROOT = path.resolve(__dirname, '../..');
/** The virtual environment the official Python SDK is installed in (never a global install). */
export const SDK_VENV = path.join(ROOT, '.stack/sdk-venv');
const REQUIREMENTS = path.join(__dirname, 'requirements.txt');
const SCRIPTS = path.join(__dirname, 'python');
const PYTHON = path.join(SDK_VENV, 'bin/python');

/** The pinned `elevenlabs` version (requirements.txt pins it and every dependency). */
export const PYTHON_SDK_VERSION = pinnedVersion(REQUIREMENTS, 'elevenlabs');

/** The pinned `openai` version: OpenAI's Python SDK, for the platform's OpenAI speech API (openai-python.e2e.test.ts). */
export const OPENAI_SDK_VERSION = pinnedVersion(REQUIREMENTS, 'openai');

/** The pinned voice-agent frameworks whose ElevenLabs services voice-agents-python.e2e.test.ts drives. */
export const PIPECAT_VERSION = pinnedVersion(REQUIREMENTS, 'pipecat-ai');
export const LIVEKIT_PLUGIN_VERSION = pinnedVersion(REQUIREMENTS, 'livekit-plugins-elevenlabs');

/** The distributions whose pinned version a usable venv must hold: one made before any of them was pinned is made again. */
const CHECKED = ['elevenlabs', 'openai', 'pipecat-ai', 'livekit-plugins-elevenlabs'];

/**
 * Creates `.stack/sdk-venv` with requirements.txt installed (tests/support/python-venv.ts), unless it
 * already holds exactly the pinned versions of CHECKED.
 */
export async function ensurePythonSdk(): Promise<void> {
  for (const distribution of CHECKED) await ensureVenv(SDK_VENV, REQUIREMENTS, distribution);
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

export async function runPythonSdk(
  script: string,
  connection: PythonConnection,
  parameters: unknown = {},
): Promise<Record<string, PythonStep>> {
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
