import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort, stackEnv } from '@platform/testing';
import SERVICES from '../../deploy/helm/platform/services.json';
import DEVELOPMENT from '../../scripts/development.json';
import { INTERNAL_SECRET, startPlatform, type Platform } from '../gateway/platform';
import { curlsWithoutFail, extractExamples, type Example } from './markdown-examples';

/**
 * Every shell and JavaScript block of the README and the interface documents, run as written against
 * one platform started the way `npm start` starts it (all four apps, the development credentials of
 * scripts/post-start.mjs), in order per document in one shell session, from a directory laid out like a
 * checkout (so `.stack/dev-credentials.json` and `node apps/auth/dist/cli/main.js` mean what they mean
 * to a reader). The documented addresses (the development ports of the service manifest) are rewritten
 * to this platform's ports; nothing else in a block is changed. docs/testing.md, "Examples".
 */
const root = path.join(__dirname, '..', '..');
const DOCUMENTS = ['README.md', 'docs/speech.md', 'docs/content.md', 'docs/auth.md', 'docs/playground.md'];
const examples = new Map(
  DOCUMENTS.map((file) => [file, extractExamples(fs.readFileSync(path.join(root, file), 'utf8'), file)]),
);
const BLOCK_TIMEOUT_MS = 120_000;
const run = promisify(execFile);

// The neural voice `npm start` fetches (scripts/fetch-voices.mjs), served as it serves it.
const PIPER_VOICES_DIR = process.env.PIPER_VOICES_DIR ?? path.join(root, '.stack', 'voices', 'piper');

let platform: Platform;
let ports: Map<number, number>;
let workdir: string;

beforeAll(async () => {
  // Each app's development port and metrics port (services.json) → a port of this run's block.
  const assigned = await Promise.all(
    SERVICES.map(async (s) => ({ ...s, testPort: await freePort(), testMetricsPort: await freePort() })),
  );
  const metrics = (name: string) => ({
    METRICS_PORT: String(assigned.find((s) => s.name === name)?.testMetricsPort),
  });
  platform = await startPlatform({
    speechWorkers: { env: { ...metrics('synthesis-worker'), PIPER_VOICES_DIR } },
    gatewayEnv: { ...metrics('gateway'), PIPER_VOICES_DIR, PLAN_LIMITS_JSON: DEVELOPMENT.PLAN_LIMITS_JSON },
    // The development settings npm start gives the apps (scripts/development.json), so the tour fits its limits.
    authEnv: { ...metrics('auth'), NEW_ACCOUNT_PLAN: DEVELOPMENT.NEW_ACCOUNT_PLAN },
    contentEnv: metrics('content'),
  });
  const actual: Record<string, string> = {
    gateway: platform.publicUrl,
    auth: platform.auth.url,
    content: platform.content.url,
    'synthesis-worker': platform.workers[0]?.url ?? '',
  };
  ports = new Map(
    assigned.flatMap((s) => [
      [s.port, Number(new URL(actual[s.name] ?? '').port)],
      [s.metricsPort, s.testMetricsPort],
    ]),
  );
  workdir = readerCheckout(platform.authDb);
  // The development credentials, made as `npm start` makes them.
  await run(process.execPath, [path.join(root, 'scripts', 'post-start.mjs')], {
    env: {
      ...process.env,
      ...stackEnv(),
      INTERNAL_SECRET,
      PUBLIC_URL: platform.publicUrl,
      AUTH_URL: platform.auth.url,
      MONGO_DB: platform.authDb,
      DEV_CREDENTIALS_FILE: path.join(workdir, '.stack', 'dev-credentials.json'),
    },
  });
}, 180_000);

afterAll(async () => {
  await platform?.stop();
  if (workdir) fs.rmSync(workdir, { recursive: true, force: true });
});

/**
 * A temporary directory that looks like the repository root to the examples: the built apps, scripts and
 * node_modules of this checkout, and a `.stack` of its own with this platform's stack addresses, secret and
 * credentials.
 */
function readerCheckout(authDb: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doc-examples-'));
  // The TypeScript configurations too: a `tsc -b` run from here without them would fall back to tsc's defaults
  // (ES5) and write that into this checkout's dist folders through the links.
  for (const entry of [
    'apps',
    'libs',
    'scripts',
    'node_modules',
    'package.json',
    'tsconfig.json',
    'tsconfig.base.json',
  ]) {
    fs.symlinkSync(path.join(root, entry), path.join(dir, entry));
  }
  fs.mkdirSync(path.join(dir, '.stack'));
  // MONGO_DB: this platform's auth runs on a database of its own, not the default `auth` a reader's admin CLI uses.
  const stack = { ...stackEnv(), MONGO_DB: authDb };
  fs.writeFileSync(
    path.join(dir, '.stack', 'stack.env'),
    Object.entries(stack)
      .map(([k, v]) => `${k}=${v}\n`)
      .join(''),
  );
  fs.writeFileSync(path.join(dir, '.stack', 'secrets.env'), `INTERNAL_SECRET=${INTERNAL_SECRET}\n`);
  return dir;
}

/** The block with every documented development port (`:8080`, `:9464`, ...) moved to this run's. */
function onThisPlatform(code: string): string {
  return code.replace(/\b(127\.0\.0\.1|localhost):(\d{4})\b/g, (whole, host: string, port: string) => {
    const moved = ports.get(Number(port));
    return moved ? `${host}:${moved}` : whole;
  });
}

interface BlockRun {
  example: Example;
  output: string;
  ok: boolean;
}

/**
 * Runs a document's runnable blocks in one bash session. A command that fails (a pipeline fails when any
 * of its commands does) marks its block failed and the session goes on, so one run names every broken block.
 */
async function runDocument(file: string, runnable: Example[]): Promise<BlockRun[]> {
  const dir = path.join(workdir, 'blocks', file.replace(/\W/g, '_'));
  fs.mkdirSync(dir, { recursive: true });
  const lines = ['exec 2>&1', 'set -o pipefail -o errtrace', `trap 'echo "@@failed (exit $?): $BASH_COMMAND"' ERR`];
  runnable.forEach((example, i) => {
    lines.push(`echo "@@start ${i}"`);
    if (example.mark?.kind === 'file') {
      // A script the reader saves under the name the mark gives, for the blocks after it to run.
      fs.writeFileSync(path.join(workdir, example.mark.reason), `${onThisPlatform(example.code)}\n`);
    } else {
      const name = example.language === 'shell' ? `block-${i}.sh` : `block-${i}.mjs`;
      fs.writeFileSync(path.join(dir, name), `${onThisPlatform(example.code)}\n`);
      lines.push(example.language === 'shell' ? `source "${dir}/${name}"` : `node "${dir}/${name}"`);
    }
    lines.push(`echo; echo "@@done ${i}"`);
  });
  const script = path.join(dir, 'session.sh');
  fs.writeFileSync(script, `${lines.join('\n')}\n`);
  const output = await new Promise<string>((resolve) => {
    const child = spawn('bash', ['--noprofile', '--norc', script], {
      cwd: workdir,
      env: { PATH: process.env.PATH ?? '', HOME: workdir, LANG: 'C.UTF-8' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let text = '';
    child.stdout.on('data', (c: Buffer) => (text += c.toString()));
    child.stderr.on('data', (c: Buffer) => (text += c.toString()));
    let last = 0;
    const timer = setInterval(() => {
      const started = text.lastIndexOf('@@start');
      if (started !== last) {
        last = started;
        startedAt = Date.now();
      } else if (Date.now() - startedAt > BLOCK_TIMEOUT_MS && child.pid) {
        text += `\n(block still running after ${BLOCK_TIMEOUT_MS / 1000} s: stopped)`;
        process.kill(-child.pid, 'SIGKILL');
      }
    }, 500);
    let startedAt = Date.now();
    child.on('exit', () => {
      clearInterval(timer);
      resolve(text);
    });
  });
  return runnable.map((example, i) => {
    const start = output.indexOf(`@@start ${i}\n`);
    const done = output.indexOf(`@@done ${i}\n`);
    const next = output.indexOf(`@@start ${i + 1}\n`);
    const end = done >= 0 ? done : next >= 0 ? next : output.length;
    const own = start >= 0 ? output.slice(start, end) : '';
    return { example, output: own, ok: done >= 0 && !own.includes('@@failed') };
  });
}

function where(example: Example): string {
  return `${example.file}:${example.line}`;
}

describe('documentation examples', () => {
  it('marks every block it leaves out with a reason', () => {
    const marked = [...examples.values()].flat().filter((e) => e.mark && e.mark.kind !== 'file');
    // The list a reviewer reads: which blocks the test does not run, and why.
    console.log(
      `examples left out:\n${marked.map((e) => `  ${where(e)} [${e.mark?.kind}] ${e.mark?.reason}`).join('\n')}`,
    );
    for (const e of marked) expect(e.mark?.reason.length).toBeGreaterThan(5);
  });

  it('makes every curl of a runnable block fail on an HTTP error (-f, --fail-with-body or -w)', () => {
    const loose = [...examples.values()]
      .flat()
      .filter((e) => !e.mark && e.language === 'shell')
      .flatMap((e) => curlsWithoutFail(e.code).map((command) => `${where(e)}: ${command}`));
    expect(loose).toEqual([]);
  });

  it.each(DOCUMENTS)(
    '%s: every unmarked block runs as written',
    async (file) => {
      const runnable = (examples.get(file) ?? []).filter((e) => !e.mark || e.mark.kind === 'file');
      const results = await runDocument(file, runnable);
      const failed = results.filter((r) => !r.ok);
      const report = failed.map(
        (r) => `${where(r.example)} failed:\n${r.example.code}\n--- output ---\n${r.output.slice(-3000)}\n`,
      );
      expect(report).toEqual([]);
    },
    900_000,
  );
});
