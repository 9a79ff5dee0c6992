import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');

/**
 * Whether a generator's committed output is current: `write` puts the generator's input (as the source makes it
 * now) in a temporary folder and returns the generator's arguments; the script (under scripts/) runs in check
 * mode. 'up to date', or what the script said on stderr.
 */
export async function generatedFilesOutcome(script: string, write: (dir: string) => string[]): Promise<string> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'generated-'));
  try {
    return await run(process.execPath, [path.join(ROOT, 'scripts', script), ...write(dir), '--check']).then(
      () => 'up to date',
      (err: { stderr?: string }) => err.stderr ?? String(err),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
