import { spawn } from 'node:child_process';
import type { RenderParams } from './settings';
import { pcmFromWav } from './wav';

/** eSpeak NG always produces 16-bit mono at this rate. */
export const ENGINE_SAMPLE_RATE = 22050;

export interface EspeakOptions {
  /** Executable (tests and packagers may point elsewhere). */
  binary?: string;
  /** Abort the run (a cancelled job) — the process is killed. */
  signal?: AbortSignal;
  /** Upper bound for one run; eSpeak needs milliseconds per sentence, so this only catches hangs. */
  timeoutMs?: number;
}

export function escapeXml(text: string): string {
  return text.replace(
    /[<>&"']/g,
    (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c] ?? c,
  );
}

/** The command line and SSML input for one run; exported so the benchmark and tests can see it. */
export function espeakInvocation(text: string, params: RenderParams): { args: string[]; input: string } {
  const voice = params.variant ? `${params.voice}+${params.variant}` : params.voice;
  const args = [
    '-m', // SSML: carries the intonation range, which has no command-line flag
    '-b',
    '1',
    '-v',
    voice,
    '-p',
    String(params.pitch),
    '-s',
    String(params.speed),
    '-a',
    String(params.amplitude),
    '-g',
    String(params.wordGap ?? 0),
    '--stdin',
    '--stdout',
  ];
  // pitchRange 50 is eSpeak's own range (100 %); 0–99 maps to 0–198 %.
  const input = `<speak><prosody range="${params.pitchRange * 2}%">${escapeXml(text)}</prosody></speak>`;
  return { args, input };
}

/** The PCM samples of eSpeak NG's streamed WAV (its size fields are placeholders). */
export function pcmFromEspeakWav(wav: Buffer): Int16Array {
  return pcmFromWav(wav, 'eSpeak NG');
}

/**
 * Synthesises one piece of text (a sentence or a few) with the eSpeak NG process and returns
 * 16-bit mono PCM at ENGINE_SAMPLE_RATE. One short-lived process per piece: startup costs a few
 * milliseconds (see docs/benchmarks.md) and a crash or hang cannot take the worker with it.
 */
export async function synthesizePcm(
  text: string,
  params: RenderParams,
  options: EspeakOptions = {},
): Promise<Int16Array> {
  const { args, input } = espeakInvocation(text, params);
  return pcmFromEspeakWav(await runEngineProcess(options.binary ?? 'espeak-ng', args, input, options));
}

/**
 * Runs one engine process: `input` on stdin, its whole stdout back. Killed on abort or after
 * `timeoutMs`; a non-zero exit rejects with the start of its stderr.
 */
export function runEngineProcess(
  binary: string,
  args: string[],
  input: string,
  options: Omit<EspeakOptions, 'binary'>,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    if (options.signal?.aborted) {
      reject(new Error('synthesis aborted'));
      return;
    }
    const child = spawn(binary, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let err = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000);
    const onAbort = () => child.kill('SIGKILL');
    options.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => {
      if (err.length < 2000) err += d.toString();
    });
    child.stdin.on('error', () => undefined); // the process may exit before reading everything
    child.once('error', (e) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      reject(e);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      if (code !== 0) {
        reject(
          new Error(
            options.signal?.aborted ? 'synthesis aborted' : `${binary} exited with ${code ?? signal}: ${err.trim()}`,
          ),
        );
        return;
      }
      resolve(Buffer.concat(out));
    });
    child.stdin.end(input, 'utf8');
  });
}
