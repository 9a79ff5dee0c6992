import type { Identity } from '@platform/identity';
import { createLogger } from '@platform/logger';
import { modelCatalogue } from '@platform/speech-engine';
import type { ChunkFrame, SpeechHooks } from '@platform/speech-jobs';
import type { SessionAuth } from '../../src/speech/stream-input/session';
import type { TextSocketRoute } from '../../src/speech/stream-input/stream-input';
import type { SessionTransport } from '../../src/speech/stream-input/transport';
import type { DrainOutcome } from '../../src/speech/tts/backpressure';
import type { JobInput, JobRunner } from '../../src/speech/tts/job-runner';

/**
 * A text-in, audio-out WebSocket protocol (stream-input, multi-stream-input) without a socket: a fake transport records what the session sends and
 * how it closes, a fake runner plays the worker's frames, a fake key lookup stands for auth.
 */

export const RACHEL = '21m00Tcm4TlvDq8ikWAM';
export const KEY = 'sk_good';
export const SPEAKER: Identity = {
  sub: 'acct_1',
  roles: ['USER'],
  scope: 'speech:read speech:write',
  method: 'api_key',
  plan: 'creator',
};

export class FakeTransport implements SessionTransport {
  open = true;
  bufferedAmount = 0;
  readonly texts: unknown[] = [];
  readonly binaries: Buffer[] = [];
  drainOutcome: DrainOutcome = 'drained';
  private resolveClosed!: (close: { code: number; reason: string }) => void;
  readonly closed = new Promise<{ code: number; reason: string }>((resolve) => (this.resolveClosed = resolve));
  sendText(text: string): void {
    this.texts.push(JSON.parse(text));
  }
  sendBinary(data: Buffer): void {
    this.binaries.push(data);
  }
  close(code: number, reason: string): void {
    this.open = false;
    this.resolveClosed({ code, reason });
  }
  async drained(): Promise<DrainOutcome> {
    return this.drainOutcome;
  }
}

/** Each job: one audio frame per piece of text ("audio:<text>"), a piece frame, the end frame; or the frames given. */
export function fakeRunner(frames?: (input: JobInput) => ChunkFrame[], beforeFrame?: () => Promise<void>) {
  const jobs: JobInput[] = [];
  let n = 0;
  const runner: JobRunner = {
    newJobId: () => `job_${++n}`,
    async *run(_jobId, input, options) {
      jobs.push(input);
      const played = frames?.(input) ?? [
        { seq: 0, type: 'audio', data: Buffer.from(`audio:${input.text}`) },
        { seq: 1, type: 'piece', index: 0, text: input.text, durationSeconds: 0.5 },
        {
          seq: 2,
          type: 'end',
          characters: input.text.length,
          durationSeconds: 0.5,
          pieces: 1,
          contentType: 'audio/mpeg',
        },
      ];
      for (const frame of played) {
        await beforeFrame?.();
        if (options.signal.aborted) return;
        yield frame;
      }
    },
    close: async () => undefined,
  };
  return { runner, jobs };
}

export function setup(
  Session: TextSocketRoute['session'],
  options: {
    frames?: (input: JobInput) => ChunkFrame[];
    /** Every concurrency slot of the caller's plan is taken. */
    slotsFull?: boolean;
    /** The speech database's dictionary lookup (absent: the server has none). */
    resolvePronunciation?: SpeechHooks['resolvePronunciation'];
    /** Awaited before each frame: a synthesis still running until it resolves. */
    beforeFrame?: () => Promise<void>;
    authTimeoutMs?: number;
    identity?: Identity;
    maxTextChars?: number;
  } = {},
) {
  const transport = new FakeTransport();
  const { runner, jobs } = fakeRunner(options.frames, options.beforeFrame);
  const charged: number[] = [];
  const refused: string[] = [];
  let keyAccepted = true;
  const auth: SessionAuth = {
    lookup: async (key) => (key === KEY && keyAccepted ? (options.identity ?? SPEAKER) : null),
    spent: async () => null,
    refuse: async (error) => {
      refused.push(error.status);
      return error;
    },
    acquire: async () => (options.slotsFull ? null : () => undefined),
  };
  const session = new Session(
    {
      runner,
      hooks: {
        quota: {
          reserve: async (_account, characters, jobId) => ({ ok: true, reservationId: `${jobId}:${characters}` }),
          settle: async (_reservation, delivered) => void charged.push(delivered),
        },
        ...(options.resolvePronunciation ? { resolvePronunciation: options.resolvePronunciation } : {}),
      },
      catalogue: modelCatalogue({ neural: false }),
      logger: createLogger('text-socket-test', 'silent'),
      auth,
      maxTextChars: options.maxTextChars ?? 5000,
      idleTimeoutMs: 20_000,
      authTimeoutMs: options.authTimeoutMs ?? 10_000,
      writeStallTimeoutMs: 1_000,
    },
    transport,
  );
  const open = (query = '', segment = RACHEL, headerKey?: string) =>
    session.open(new URLSearchParams(query), segment, headerKey ? { 'xi-api-key': headerKey } : {});
  const send = (message: unknown) => session.receive(JSON.stringify(message));
  const revokeKey = () => {
    keyAccepted = false;
  };
  return { session, transport, jobs, charged, refused, open, send, revokeKey };
}

export const errorOf = (t: FakeTransport) =>
  (t.texts.find((m) => typeof m === 'object' && m !== null && 'detail' in m) as { detail: unknown } | undefined)
    ?.detail;
