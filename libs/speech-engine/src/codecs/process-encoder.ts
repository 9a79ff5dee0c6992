import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import type { Resampler } from '../resample';
import type { AudioEncoder } from './codec';

const bytesOf = (samples: Int16Array) => Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength);

/** An encoder process fed raw 16-bit PCM on stdin, its encoded stream read from stdout. */
export function processEncoder(
  binary: string,
  args: string[],
  resampler: Resampler,
  onData: (bytes: Buffer) => void,
): AudioEncoder {
  const child: ChildProcessWithoutNullStreams = spawn(binary, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  let aborted = false;
  child.stdout.on('data', (d: Buffer) => {
    if (!aborted) onData(d);
  });
  child.stderr.on('data', (d: Buffer) => {
    if (stderr.length < 2000) stderr += d.toString();
  });
  child.stdin.on('error', () => undefined);
  const closed = new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => {
      if (code === 0 || aborted) resolve();
      else reject(new Error(`${binary} exited with ${code ?? signal}: ${stderr.trim()}`));
    });
  });
  // Keep an unobserved failure from crashing the process; `end()` reports it.
  closed.catch(() => undefined);
  return {
    write(pcm) {
      if (aborted) return;
      const samples = resampler.push(pcm);
      if (samples.length > 0) child.stdin.write(Buffer.from(bytesOf(samples)));
    },
    async end() {
      if (!aborted) {
        const tail = resampler.end();
        if (tail.length > 0) child.stdin.write(Buffer.from(bytesOf(tail)));
        child.stdin.end();
      }
      await closed;
    },
    abort() {
      aborted = true;
      child.kill('SIGKILL');
    },
  };
}
