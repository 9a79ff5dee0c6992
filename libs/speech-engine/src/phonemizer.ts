import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import { PYTHON } from './python';

/**
 * eSpeak NG's IPA for one clause, as `espeak-ng -q --ipa` prints it: what the neural model is fed.
 *
 * With the default program (`espeak-ng` from PATH) the answer comes from one helper process per
 * process (`python/espeak_phonemes.py`: eSpeak NG's library, loaded once, `espeak_TextToPhonemes`),
 * not from a program started per clause. A start is a fork of the calling process, which in a
 * synthesis worker holds the model: 10–15 ms of its event loop per clause, during which no other
 * job's audio moves, and the same again in the wait for each job's first audio (docs/decisions.md, 65).
 * Another program (`ESPEAK_BINARY`, which the tests use to pace or fail the engine) is run per clause
 * as before. A request the helper cannot answer (it died, or stopped answering) is asked again of
 * the program itself, so one bad clause fails no other job.
 */
export function clauseIpa(text: string, espeakVoice: string, binary = DEFAULT_BINARY): Promise<string> {
  if (binary !== DEFAULT_BINARY) return programIpa(text, espeakVoice, binary);
  return (helper ??= startHelper()).ask(espeakVoice, text).catch(() => programIpa(text, espeakVoice, binary));
}

const DEFAULT_BINARY = 'espeak-ng';
const SCRIPT = path.resolve(__dirname, '..', 'python', 'espeak_phonemes.py');
/** As long as a clause may take the program (the helper answers in well under a millisecond). */
const TIMEOUT_MS = 10_000;

/** The program, once for the clause (`-b 1`: UTF-8 input). */
function programIpa(text: string, espeakVoice: string, binary: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      binary,
      ['-q', '--ipa', '-b', '1', '-v', espeakVoice, '--', text],
      { timeout: TIMEOUT_MS, maxBuffer: 1 << 20 },
      (err, stdout) => (err ? reject(err) : resolve(normalise(stdout))),
    );
  });
}

const normalise = (ipa: string) => ipa.replace(/\s+/g, ' ').trim();

interface Helper {
  ask(voice: string, text: string): Promise<string>;
}

let helper: Helper | undefined;

interface Pending {
  resolve: (ipa: string) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
}

/**
 * The helper process, started at the first request. It is unreferenced while idle, so it never
 * keeps its parent alive (it ends when its stdin closes with the parent); a failure fails its
 * pending requests (each then goes to the program) and the next request starts a new one.
 */
function startHelper(): Helper {
  const child: ChildProcessWithoutNullStreams = spawn(PYTHON, ['-S', SCRIPT], { stdio: ['pipe', 'pipe', 'pipe'] });
  const pending = new Map<number, Pending>();
  let next = 0;
  let buffered = '';
  let dead = false;
  const setReferenced = (on: boolean) => {
    for (const handle of [child, child.stdin, child.stdout, child.stderr] as { ref?(): void; unref?(): void }[])
      if (on) handle.ref?.();
      else handle.unref?.();
  };
  const fail = (reason: string) => {
    if (dead) return;
    dead = true;
    if (helper === self) helper = undefined;
    child.kill('SIGKILL');
    for (const p of pending.values()) {
      clearTimeout(p.timer);
      p.reject(new Error(`eSpeak NG phonemizer: ${reason}`));
    }
    pending.clear();
  };
  child.once('error', (err) => fail(err.message));
  child.once('exit', (code, signal) => fail(`exited with ${code ?? signal}`));
  child.stdin.on('error', (err) => fail(err.message));
  child.stderr.resume();
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    buffered += chunk;
    let end: number;
    while ((end = buffered.indexOf('\n')) >= 0) {
      const [id, status, ...rest] = buffered.slice(0, end).split('\t');
      buffered = buffered.slice(end + 1);
      const request = pending.get(Number(id));
      if (!request) continue;
      pending.delete(Number(id));
      clearTimeout(request.timer);
      if (status === 'ok') request.resolve(normalise(rest.join('\t')));
      else request.reject(new Error(`eSpeak NG phonemizer: ${rest.join('\t')}`));
    }
    if (pending.size === 0) setReferenced(false);
  });
  setReferenced(false);
  const self: Helper = {
    ask(voice, text) {
      if (dead) return Promise.reject(new Error('eSpeak NG phonemizer: not running'));
      return new Promise((resolve, reject) => {
        const id = next++;
        // A helper that stops answering is replaced; the clause goes to the program.
        const timer = setTimeout(() => fail('no answer'), TIMEOUT_MS);
        pending.set(id, { resolve, reject, timer });
        setReferenced(true);
        child.stdin.write(`${id}\t${line(voice)}\t${line(text)}\n`);
      });
    },
  };
  return self;
}

/** One field of a request line: no tab, newline or other control character (eSpeak reads them as spaces). */
const line = (field: string) => field.replace(/\p{Cc}/gu, ' ');
