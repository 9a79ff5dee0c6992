import type { WordTiming } from './alignment';
import { createEncoder, type EncoderOptions } from './encoder';
import { ENGINE_SAMPLE_RATE, synthesizePcm } from './espeak';
import { synthesizeTimedPcm } from './espeak-timing';
import type { OutputFormat } from './formats';
import { fadeEdges, normalizeLoudness } from './loudness';
import { approximateWordTimings } from './neural-timing';
import { espeakInput, pronouncePiece, wordsInPiece, type Pronunciation } from './pronunciation/apply';
import { planPieces } from './sentences';
import type { RenderParams } from './settings';

export interface SynthesisRequest {
  text: string;
  params: RenderParams;
  format: OutputFormat;
  /** Pieces already split (WebSocket segments); otherwise the text is split at sentences. */
  pieces?: string[];
  /** Checked before every piece: a cancelled job stops within one piece. */
  shouldStop?: () => Promise<boolean> | boolean;
  signal?: AbortSignal;
  espeakBinary?: string;
  encoder?: EncoderOptions;
  /**
   * Another engine for the pieces (the neural model); PCM must be at ENGINE_SAMPLE_RATE, already in
   * the voice of `params`: the neural model's speaker is coloured to it on the inference thread
   * (`synthesizePiperPcm`'s `colour`, `neuralColour`), not here on the caller's event loop.
   */
  pcmFor?: (piece: string, index: number) => Promise<Int16Array>;
  /**
   * The index of a piece to start rendering at once, alongside the pieces before it: a job taken
   * over from a dead worker renders the pieces already sent again (to continue the encoder's
   * output), and the first one not sent, the one a listener waits for, need not wait behind them.
   */
  prefetch?: number;
  /**
   * Report each piece's word timing (`onPiece`'s `words`): eSpeak NG's own, read from its library's
   * events (`synthesizeTimedPcm`); for `pcmFor` engines, `approximateWordTimings`.
   */
  timed?: boolean;
  /**
   * The job's pronunciation dictionaries (`compilePronunciation`): eSpeak NG says each piece as
   * `pronouncePiece` rewrites it, its word timing mapped back onto the piece's own text. A `pcmFor`
   * engine applies them itself (it is handed the piece as the client sent it).
   */
  pronunciation?: Pronunciation;
}

/** A piece done: its text, its audio's length and, when `timed`, its words' spans. */
export interface PieceDone {
  index: number;
  text: string;
  durationSeconds: number;
  words?: WordTiming[];
}

export interface SynthesisProgress {
  /** Set when `shouldStop` stopped the run. */
  stopped: boolean;
  pieces: number;
  /** Seconds of audio produced. */
  durationSeconds: number;
  characters: number;
}

/**
 * Synthesises `text` piece by piece into one continuous stream of the requested format.
 * `onAudio` receives encoded bytes as soon as they exist; `onPiece` after each piece is encoded
 * (with its text and duration, for alignment).
 */
export async function synthesizeToStream(
  request: SynthesisRequest,
  onAudio: (bytes: Buffer) => void,
  onPiece?: (piece: PieceDone) => void,
): Promise<SynthesisProgress> {
  const pieces = request.pieces ?? planPieces(request.text);
  const encoder = createEncoder(request.format, onAudio, request.encoder);
  const progress: SynthesisProgress = { stopped: false, pieces: 0, durationSeconds: 0, characters: 0 };
  // Pipelining: the next piece renders while this one is processed, encoded and sent, so the
  // engine never waits for the encoder (nor the encoder for the engine, while it keeps up).
  let next: ReturnType<typeof enginePcm> | undefined;
  const prefetchAt = request.prefetch ?? -1;
  const early =
    prefetchAt > 0 && prefetchAt < pieces.length ? enginePcm(request, pieces[prefetchAt]!, prefetchAt) : undefined;
  // Abandoned by a stop or a failure before its turn: its own failure then matters to no one.
  early?.catch(() => undefined);
  const render = (index: number) => (index === prefetchAt && early ? early : enginePcm(request, pieces[index]!, index));
  try {
    for (const [index, piece] of pieces.entries()) {
      if (request.shouldStop && (await request.shouldStop())) {
        progress.stopped = true;
        encoder.abort();
        return progress;
      }
      const rendered = await (next ?? render(index));
      next = index + 1 < pieces.length ? render(index + 1) : undefined;
      // A stop or a failure abandons the next piece's rendering; its own failure then matters to no one.
      next?.catch(() => undefined);
      const words = rendered.words;
      let pcm = rendered.pcm;
      if (request.params.normalize) pcm = normalizeLoudness(pcm);
      fadeEdges(pcm);
      encoder.write(pcm);
      const seconds = pcm.length / ENGINE_SAMPLE_RATE;
      progress.pieces++;
      progress.durationSeconds += seconds;
      progress.characters += piece.length;
      onPiece?.({ index, text: piece, durationSeconds: seconds, ...(words ? { words } : {}) });
    }
    await encoder.end();
    return progress;
  } catch (err) {
    encoder.abort();
    throw err;
  }
}

/** One piece's PCM from the request's engine, with its words' timing when the request is `timed`. */
async function enginePcm(
  request: SynthesisRequest,
  piece: string,
  index: number,
): Promise<{ pcm: Int16Array; words?: WordTiming[] }> {
  if (request.pcmFor) {
    const pcm = await request.pcmFor(piece, index);
    return request.timed ? { pcm, words: approximateWordTimings(piece, pcm, ENGINE_SAMPLE_RATE) } : { pcm };
  }
  const options = { signal: request.signal };
  const said = request.pronunciation ? espeakInput(pronouncePiece(piece, request.pronunciation)) : null;
  const text = said?.text ?? piece;
  if (request.timed) {
    const timed = await synthesizeTimedPcm(text, request.params, options);
    return said ? { pcm: timed.pcm, words: wordsInPiece(timed.words, said.origin) } : timed;
  }
  return { pcm: await synthesizePcm(text, request.params, { ...options, binary: request.espeakBinary }) };
}
