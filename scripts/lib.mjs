// Helpers shared by the run and test commands. Plain Node, no dependencies: they run before
// `npm install`.
import { spawnSync, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const stackDir = process.env.STACK_DIR ?? path.join(root, '.stack');

export function run(cmd, args, options = {}) {
  const result = spawnSync(cmd, args, { stdio: 'inherit', cwd: root, ...options });
  if (result.status !== 0) {
    throw new Error(`${cmd} ${args.join(' ')} exited with ${result.status ?? result.signal}`);
  }
}

export function has(cmd) {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
}

/** Installs npm dependencies when node_modules is missing or older than the lock file. */
export function ensureDependencies() {
  const lock = path.join(root, 'package-lock.json');
  const marker = path.join(root, 'node_modules', '.package-lock.json');
  const stale =
    !fs.existsSync(marker) || (fs.existsSync(lock) && fs.statSync(lock).mtimeMs > fs.statSync(marker).mtimeMs);
  if (!stale) return;
  console.log('installing npm dependencies…');
  // `npm install` rather than `npm ci`: it honours the lock file yet tolerates npm's known habit of
  // leaving other platforms' optional binaries (swc, resolvers) out of it.
  // onnxruntime-node's install script would fetch its optional CUDA provider from NuGet; `.npmrc`
  // skips it, and so does this (npm's next major may stop passing unknown .npmrc keys to scripts).
  run('npm', ['install', '--no-audit', '--no-fund'], { env: { ...process.env, ONNXRUNTIME_NODE_INSTALL: 'skip' } });
}

/** Debian packages the apps and tests need at run time (the stack script installs its own). */
const SYSTEM_PACKAGES = [
  // [command that proves it is there, Debian package]
  ['espeak-ng', 'espeak-ng'],
  ['lame', 'lame'],
  ['sox', 'sox'],
  ['ffmpeg', 'ffmpeg'], // decodes uploaded voice samples (WAV, MP3, Ogg/Opus, FLAC)
  ['python3', 'python3'], // unpacks the neural voice's wheel (scripts/fetch-voices.mjs); reads eSpeak NG's timing (libs/speech-engine/python)
  ['chromium', 'chromium'],
  ['openssl', 'openssl'], // the test certificate of the Python SDK's wss:// helper (tests/sdk/tls-proxy.ts)
  ['promtool', 'prometheus'], // checks deploy/prometheus/alerts.yml and scrapes the apps (tests/deploy/prometheus.e2e.test.ts)
  ['go', 'golang-go'], // builds helm and kubeconform for the deploy check (scripts/deploy-check.mjs); Debian's is too old for helm, so it only fetches a newer Go from the Go module proxy
  // A check that is more than a command name runs as a shell command that must succeed.
  ['python3 -c "import ensurepip, venv"', 'python3-venv'], // the virtual environments of the official Python SDK (tests/sdk), schemathesis (tests/contract) and the neural voice's int8 variant (scripts/quantize-voice.mjs)
];

const present = (check) =>
  /\s/.test(check) ? spawnSync('sh', ['-c', check], { stdio: 'ignore' }).status === 0 : has(check);

export function ensureSystemPackages() {
  const missing = SYSTEM_PACKAGES.filter(([check]) => !present(check)).map(([, pkg]) => pkg);
  if (missing.length === 0) return;
  if (process.getuid?.() !== 0) {
    throw new Error(`missing system packages: ${missing.join(' ')} (install them with apt-get as root)`);
  }
  console.log(`installing system packages: ${missing.join(' ')}`);
  run('apt-get', ['update', '-qq']);
  run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...missing], {
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
}

export function stackUp() {
  run(process.execPath, [path.join(root, 'scripts', 'stack.mjs'), 'up']);
}

/** KEY=VALUE lines of a file as an object (missing file → empty). */
export function readEnvFile(file) {
  const env = {};
  if (!fs.existsSync(file)) return env;
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const match = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
    if (match) env[match[1]] = match[2];
  }
  return env;
}

/** Secrets generated once per checkout and kept under .stack (never committed). */
export function localSecrets() {
  const file = path.join(stackDir, 'secrets.env');
  const env = readEnvFile(file);
  if (!env.INTERNAL_SECRET) {
    env.INTERNAL_SECRET = randomBytes(32).toString('base64url');
    fs.mkdirSync(stackDir, { recursive: true });
    fs.writeFileSync(file, `INTERNAL_SECRET=${env.INTERNAL_SECRET}\n`, { mode: 0o600 });
  }
  return env;
}

export function stackEnv() {
  const fromFile = readEnvFile(path.join(stackDir, 'stack.env'));
  const env = {};
  for (const key of ['REDIS_URL', 'KAFKA_BROKERS', 'MONGO_URL']) env[key] = process.env[key] ?? fromFile[key];
  return env;
}

export function gitRevision() {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root }).toString().trim();
  } catch {
    return 'unknown';
  }
}

/**
 * Creates the virtual environment `venv` and installs `requirements` (every dependency pinned) into
 * it with pip from PyPI, unless it already holds the pinned version of `distribution`; never a
 * global install. Callers at the same time serialise on one `flock`: one installs, the others wait.
 * Returns its interpreter. (bench/quality's recogniser uses it too; tests/support/python-venv.ts is the
 * tests' asynchronous twin.)
 */
export function ensurePythonVenv(venv, requirements, distribution) {
  const version = new RegExp(`^${distribution}==(.+)$`, 'm').exec(fs.readFileSync(requirements, 'utf8'))?.[1] ?? '';
  const python = path.join(venv, 'bin', 'python');
  const check = `"${python}" -c "import importlib.metadata as m, sys; sys.exit(m.version('${distribution}') != '${version}')"`;
  const install = [
    `rm -rf "${venv}"`,
    `python3 -m venv "${venv}"`,
    `"${venv}/bin/pip" install --disable-pip-version-check --no-input -q -r "${requirements}"`,
  ].join(' && ');
  fs.mkdirSync(path.dirname(venv), { recursive: true });
  // pip's words go to stderr: a caller's stdout may be its answer (bench/quality's --json).
  execFileSync('flock', [`${venv}.lock`, 'sh', '-c', `${check} 2>/dev/null || { ${install}; }`], {
    stdio: ['ignore', 2, 2],
    timeout: 600_000,
  });
  return python;
}
