import type { CharacterAlignment } from '@platform/speech-engine';

/**
 * Chunk framing on the job's Redis stream. Every entry has a sequence number `s` (0, 1, 2 …) and a
 * type `t`:
 * - `a` audio: `d` holds encoded bytes;
 * - `p` piece done: `m` JSON `{index, text, durationSeconds}` (alignment for WebSocket clients), and for a
 *   job with `timestamps`, `alignment` and `normalizedAlignment`: the piece's characters with their
 *   times in the whole audio (readers that do not know these fields ignore them);
 * - `e` end: `m` JSON `{characters, durationSeconds, pieces, contentType}`; the last entry;
 * - `x` error: `m` JSON `{status, message}`; the last entry. `status` is `error` (the engine failed)
 *   or `unavailable` (`UNAVAILABLE_STATUS`: no worker could finish the job);
 * - `c` cancelled: the worker stopped because the client went away; the last entry.
 * An entry may also carry `w`, the worker process that wrote it (readers ignore it). A job taken
 * over from a dead worker goes on with the next sequence number (job-progress.ts).
 */
export type ChunkFrame =
  | { seq: number; type: 'audio'; data: Buffer }
  | {
      seq: number;
      type: 'piece';
      index: number;
      text: string;
      durationSeconds: number;
      alignment?: CharacterAlignment;
      normalizedAlignment?: CharacterAlignment;
    }
  | { seq: number; type: 'end'; characters: number; durationSeconds: number; pieces: number; contentType: string }
  | { seq: number; type: 'error'; status: string; message: string }
  | { seq: number; type: 'cancelled' };

export type FrameBody = ChunkFrame extends infer F ? (F extends ChunkFrame ? Omit<F, 'seq'> : never) : never;

/**
 * An error frame's status when the job was lost rather than failed: its workers died more often
 * than the retries allow, or a resumed attempt could not continue the audio exactly. The gateway
 * answers it as it answers a worker that never came back (503).
 */
export const UNAVAILABLE_STATUS = 'unavailable';

const CODES = { audio: 'a', piece: 'p', end: 'e', error: 'x', cancelled: 'c' } as const;

/** Stream entry fields (flat list for XADD). */
export function encodeFrame(frame: ChunkFrame): (string | Buffer)[] {
  const fields: (string | Buffer)[] = ['s', String(frame.seq), 't', CODES[frame.type]];
  switch (frame.type) {
    case 'audio':
      fields.push('d', frame.data);
      break;
    case 'piece':
      fields.push(
        'm',
        JSON.stringify({
          index: frame.index,
          text: frame.text,
          durationSeconds: frame.durationSeconds,
          ...(frame.alignment ? { alignment: frame.alignment } : {}),
          ...(frame.normalizedAlignment ? { normalizedAlignment: frame.normalizedAlignment } : {}),
        }),
      );
      break;
    case 'end':
      fields.push(
        'm',
        JSON.stringify({
          characters: frame.characters,
          durationSeconds: frame.durationSeconds,
          pieces: frame.pieces,
          contentType: frame.contentType,
        }),
      );
      break;
    case 'error':
      fields.push('m', JSON.stringify({ status: frame.status, message: frame.message }));
      break;
    case 'cancelled':
      break;
  }
  return fields;
}

function parseMeta(raw: Buffer | undefined): Record<string, unknown> {
  if (!raw) return {};
  try {
    const value: unknown = JSON.parse(raw.toString('utf8'));
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const str = (v: unknown) => (typeof v === 'string' ? v : '');
const numbers = (v: unknown): v is number[] =>
  Array.isArray(v) && v.every((n) => typeof n === 'number' && Number.isFinite(n));

/** A well-formed alignment (three lists of one length), else undefined. */
function alignment(v: unknown): CharacterAlignment | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  const a = v as Record<string, unknown>;
  const characters = a.characters;
  const starts = a.character_start_times_seconds;
  const ends = a.character_end_times_seconds;
  if (
    !Array.isArray(characters) ||
    !characters.every((c) => typeof c === 'string') ||
    !numbers(starts) ||
    !numbers(ends)
  )
    return undefined;
  if (starts.length !== characters.length || ends.length !== characters.length) return undefined;
  return {
    characters: characters as string[],
    character_start_times_seconds: starts,
    character_end_times_seconds: ends,
  };
}

/** Parses XREAD's field list; a malformed entry becomes an error frame, never an exception. */
export function decodeFrame(fields: Buffer[]): ChunkFrame {
  const map = new Map<string, Buffer>();
  for (let i = 0; i + 1 < fields.length; i += 2) map.set(fields[i]!.toString('latin1'), fields[i + 1]!);
  const seq = Number(map.get('s')?.toString() ?? NaN);
  const type = map.get('t')?.toString();
  if (!Number.isInteger(seq) || seq < 0)
    return { seq: -1, type: 'error', status: 'error', message: 'malformed audio frame' };
  const meta = parseMeta(map.get('m'));
  switch (type) {
    case 'a':
      return { seq, type: 'audio', data: map.get('d') ?? Buffer.alloc(0) };
    case 'p': {
      const timing = { alignment: alignment(meta.alignment), normalizedAlignment: alignment(meta.normalizedAlignment) };
      return {
        seq,
        type: 'piece',
        index: num(meta.index),
        text: str(meta.text),
        durationSeconds: num(meta.durationSeconds),
        ...(timing.alignment ? { alignment: timing.alignment } : {}),
        ...(timing.normalizedAlignment ? { normalizedAlignment: timing.normalizedAlignment } : {}),
      };
    }
    case 'e':
      return {
        seq,
        type: 'end',
        characters: num(meta.characters),
        durationSeconds: num(meta.durationSeconds),
        pieces: num(meta.pieces),
        contentType: str(meta.contentType),
      };
    case 'x':
      return {
        seq,
        type: 'error',
        status: str(meta.status) || 'error',
        message: str(meta.message) || 'synthesis failed',
      };
    case 'c':
      return { seq, type: 'cancelled' };
    default:
      return { seq, type: 'error', status: 'error', message: 'malformed audio frame' };
  }
}

export function isLastFrame(frame: ChunkFrame): boolean {
  return frame.type === 'end' || frame.type === 'error' || frame.type === 'cancelled';
}
