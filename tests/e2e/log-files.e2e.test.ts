import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

/**
 * The log files `npm start` (scripts/start.mjs, one per app) and the stack script (scripts/stack.mjs)
 * append to are owner-only: created 0600 in a 0700 folder, and an older 0644 file is tightened
 * when it is opened again. Runs the scripts' own helper the way they do, in a Node process.
 */
const run = promisify(execFile);
const root = path.resolve(__dirname, '../..');
const helper = path.join(root, 'scripts', 'private-log.mjs');

async function openLog(file: string, text: string): Promise<void> {
  const script = `import fs from 'node:fs'; import { openPrivateLog } from ${JSON.stringify(helper)};
const fd = openPrivateLog(${JSON.stringify(file)}); fs.writeSync(fd, ${JSON.stringify(text)}); fs.closeSync(fd);`;
  await run(process.execPath, ['--input-type=module', '-e', script], { env: { PATH: process.env.PATH ?? '' } });
}

const mode = (file: string) => fs.statSync(file).mode & 0o777;

describe('log files', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'private-log-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('a new log file is 0600 in a new 0700 folder, whatever the umask allows', async () => {
    const file = path.join(dir, 'logs', 'gateway.log');
    await openLog(file, 'line 1\n');
    expect(mode(file).toString(8)).toBe('600');
    expect(mode(path.dirname(file)).toString(8)).toBe('700');
    expect(fs.readFileSync(file, 'utf8')).toBe('line 1\n');
  });

  it('an existing world-readable log file is made 0600 and appended to', async () => {
    const file = path.join(dir, 'auth.log');
    fs.writeFileSync(file, 'old\n', { mode: 0o644 });
    fs.chmodSync(file, 0o644);
    await openLog(file, 'new\n');
    expect(mode(file).toString(8)).toBe('600');
    expect(fs.readFileSync(file, 'utf8')).toBe('old\nnew\n');
  });

  it('npm start and the stack script open their logs only through it', () => {
    for (const script of ['start.mjs', 'stack.mjs']) {
      const source = fs.readFileSync(path.join(root, 'scripts', script), 'utf8');
      expect({ script, uses: source.includes('openPrivateLog(') }).toEqual({ script, uses: true });
      expect({ script, rawAppend: /openSync\([^)]*'a'/.test(source) }).toEqual({ script, rawAppend: false });
    }
  });
});
