import { createTextAligner, type PieceDone } from '@platform/speech-engine';
import type { FrameBody, SynthesisJobData } from '@platform/speech-jobs';

/**
 * The piece frames of a job: each piece's text and duration, and for a job with `timestamps` its
 * characters' alignment in the whole audio (the pieces' durations so far are its offset), built
 * from the engine's word timing (`synthesizeToStream`'s `timed`).
 */
export function pieceFrames(data: Pick<SynthesisJobData, 'text' | 'timestamps'>): (piece: PieceDone) => FrameBody {
  const aligner = data.timestamps ? createTextAligner(data.text) : null;
  let offsetSeconds = 0;
  return ({ index, text, durationSeconds, words }) => {
    const frame = { type: 'piece' as const, index, text, durationSeconds };
    const start = offsetSeconds;
    offsetSeconds += durationSeconds;
    return aligner ? { ...frame, ...aligner.piece(text, words ?? [], start, durationSeconds) } : frame;
  };
}
