import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { UPLOAD_LIMITS } from '../../../apps/gateway/src/speech/voices/upload-limits';
import { createApiKey, registerAccount, startPlatform, type Platform } from '../../gateway/platform';
import { espeakWav, REFERENCE_TEXT } from '../../voices/audio';

/** Clients of `/v1/voices/add` for the upload tests: accounts, large samples, streamed bodies, a health prober. */
export interface Caller {
  key: string;
}

export async function newCaller(platform: { publicUrl: string; auth: { url: string } }, name: string): Promise<Caller> {
  const account = await registerAccount(platform.publicUrl, name);
  return { key: (await createApiKey(platform.auth.url, account.id)).key };
}

/** Speech looped to just under the longest allowed sample, as FLAC (about 3 MB). */
let longest: Buffer | undefined;
export function longestSample(): Buffer {
  if (longest) return longest;
  // ffmpeg loops a file, not a pipe.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'voice-uploads-'));
  try {
    const speech = path.join(dir, 'speech.wav');
    fs.writeFileSync(speech, espeakWav(REFERENCE_TEXT, 'en+m3', 30));
    const seconds = String(UPLOAD_LIMITS.maxFileSeconds - 1);
    longest = execFileSync(
      'ffmpeg',
      [
        '-v',
        'error',
        '-nostdin',
        '-stream_loop',
        '-1',
        '-i',
        speech,
        '-t',
        seconds,
        '-c:a',
        'flac',
        '-f',
        'flac',
        'pipe:1',
      ],
      { maxBuffer: 64 * 1024 * 1024 },
    );
    return longest;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** A multipart/form-data body as the platform's clients send it (fetch's own encoding of FormData). */
export async function encodeForm(
  fields: Record<string, string>,
  files: { name: string; bytes: Buffer }[],
): Promise<{ body: Buffer; contentType: string }> {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  for (const f of files) form.append('files', new Blob([new Uint8Array(f.bytes)], { type: 'audio/flac' }), f.name);
  const request = new Request('http://encoder.invalid/', { method: 'POST', body: form });
  return { body: Buffer.from(await request.arrayBuffer()), contentType: request.headers.get('content-type')! };
}

/**
 * Streams `body` in pieces; `hold` (when given) is awaited before anything past the first `holdAfter`
 * bytes is sent. `sent` resolves once the last byte has been handed to the connection.
 */
export function streamedBody(body: Buffer, options: { holdAfter?: number; hold?: Promise<unknown> } = {}) {
  let offset = 0;
  let markSent!: () => void;
  const sent = new Promise<void>((resolve) => (markSent = resolve));
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (options.hold && options.holdAfter !== undefined && offset >= options.holdAfter) await options.hold;
      const end = Math.min(
        body.length,
        offset + 256 * 1024,
        options.holdAfter !== undefined && offset < options.holdAfter ? options.holdAfter : body.length,
      );
      controller.enqueue(new Uint8Array(body.subarray(offset, end)));
      offset = end;
      if (offset >= body.length) {
        controller.close();
        markSent();
      }
    },
  });
  return { stream, sent, sentBytes: () => offset };
}

export function upload(
  gateway: string,
  caller: Caller,
  contentType: string,
  stream: ReadableStream<Uint8Array>,
): Promise<Response> {
  return fetch(`${gateway}/v1/voices/add`, {
    method: 'POST',
    headers: { 'xi-api-key': caller.key, 'content-type': contentType },
    body: stream,
    duplex: 'half',
  } as RequestInit);
}

export interface Probe {
  sentAt: number;
  latencyMs: number;
  status: number;
  /** How much of `latencyMs` the server's main thread and the prober's waited for a core (other processes' use). */
  waitMs: number;
  /** `latencyMs` less `waitMs`: the time the server took to answer, however busy the machine. */
  servedMs: number;
}

/**
 * `/healthz` probed from a process of its own (support/healthz-prober.mjs) until `stop`; `serverPid`
 * is the server's process, whose main thread's waits for a core each probe reports.
 */
export function startProber(url: string, serverPid: number) {
  const child = spawn(process.execPath, [path.join(__dirname, 'healthz-prober.mjs'), url, String(serverPid)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const probes: Probe[] = [];
  let rest = '';
  child.stdout.on('data', (chunk: Buffer) => {
    const lines = (rest + chunk.toString()).split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) {
      const [sentAt, latencyMs, status, waitMs] = line.split(' ').map(Number);
      const served = Math.max(0, latencyMs! - waitMs!);
      probes.push({ sentAt: sentAt!, latencyMs: latencyMs!, status: status!, waitMs: waitMs!, servedMs: served });
    }
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    probes,
    async stop(): Promise<Probe[]> {
      child.stdin.end();
      await exited;
      return probes;
    },
  };
}

/**
 * The platform for the upload tests: every account is on the free plan, whose voice limit is `voiceLimit`,
 * with request limits far away so only the upload bounds can refuse; one synthesis worker, which runs the
 * voice-analysis jobs (`workerEnv` added to its environment).
 */
export function startUploadPlatform(
  voiceLimit: number,
  gatewayEnv: Record<string, string> = {},
  workerEnv: Record<string, string> = {},
): Promise<Platform> {
  return startPlatform({
    speechWorkers: { env: workerEnv },
    gatewayEnv: {
      ...gatewayEnv,
      SPEECH_PLANS: JSON.stringify({
        free: { character_limit: 1_000, voice_limit: voiceLimit, max_voice_add_edits: 10 },
      }),
      PLAN_LIMITS_JSON: JSON.stringify({ free: { rps: 1000, concurrency: 100 } }),
      LOG_LEVEL: 'warn',
    },
  });
}

/** The pids of the local stack's processes (mongod, Kafka, Redis) as `.stack/pids` names them; none for a stack started otherwise. */
export function stackPids(): number[] {
  const pidsDir = path.join(process.env.STACK_DIR ?? path.join(__dirname, '..', '..', '..', '.stack'), 'pids');
  const pids: number[] = [];
  for (const part of ['mongo', 'kafka', 'redis']) {
    try {
      pids.push(Number(fs.readFileSync(path.join(pidsDir, `${part}.pid`), 'utf8').trim()));
    } catch {
      // not started by the stack script
    }
  }
  return pids;
}

/**
 * Lowers the CPU priority of every thread of the processes `pids` where permitted, and returns what
 * restores them. For a latency bound on the gateway: in a deployment the client and the stack run on
 * machines of their own, while here, on two cores, the client's threads pushing a 40 MB upload and
 * mongod's threads writing it take the cores the gateway needs to answer. Linux keeps a nice value per
 * thread (`os.setPriority` of a pid changes only that thread), hence every task of each process: a
 * process's garbage collector and I/O threads compete as much as its main thread.
 */
export function yieldProcesses(pids: readonly number[], niceness = 10): () => void {
  const changed: { tid: number; priority: number }[] = [];
  for (const pid of pids) {
    let tids: string[];
    try {
      tids = fs.readdirSync(`/proc/${pid}/task`);
    } catch {
      continue;
    }
    for (const tid of tids.map(Number)) {
      try {
        const priority = os.getPriority(tid);
        os.setPriority(tid, niceness);
        changed.push({ tid, priority });
      } catch {
        // not permitted, or the thread ended: it keeps its priority
      }
    }
  }
  return () => {
    for (const { tid, priority } of changed) {
      try {
        os.setPriority(tid, priority);
      } catch {
        // the thread ended
      }
    }
  };
}
