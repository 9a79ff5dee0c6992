import {
  DEFAULT_OUTPUT_FORMAT,
  DEFAULT_VOICE_SETTINGS,
  neuralColour,
  PREMADE_VOICES,
  renderParams,
  resolveOutputFormat,
  synthesizePiperPcm,
  synthesizeToStream,
  type PiperVoice,
} from '@platform/speech-engine';
import type { CalibrationLevel, PieceTiming } from './capacity-model';

/**
 * About 11 s of audio in two sentences, three pieces: a first piece of a few words, the rest of the
 * first sentence (the transition where concurrent streams go silent first) and a whole sentence.
 * Short enough to add one to four seconds to a boot (idle to busy 2-core machine) per stream run.
 */
const CALIBRATION_TEXT =
  'Every morning the baker opens the shop at six, and sells warm bread to the people on their way to work. ' +
  'A stream of audio is real-time when each second of it is ready before the listener needs to hear it.';

/** Runs `streams` calibration streams at once and reports each one's pieces. */
export type CalibrationRun = (streams: number) => Promise<CalibrationLevel>;

/**
 * Synthesises `CALIBRATION_TEXT` `streams` times at once as stream jobs do (phonemes, inference on
 * the model's thread, the default voice's colour, MP3 encoding), timing every piece from the start
 * of its rendering to its audio being encoded.
 */
export function calibrationRun(voice: PiperVoice, espeakBinary?: string): CalibrationRun {
  const premade = PREMADE_VOICES[0]!;
  const format = resolveOutputFormat(DEFAULT_OUTPUT_FORMAT)!;
  const params = renderParams(premade.engine, DEFAULT_VOICE_SETTINGS);
  // Coloured on the model's thread, as a job's pieces are (process-job.ts).
  const colour = params.colour ?? neuralColour(params);
  const oneStream = async (): Promise<PieceTiming[]> => {
    // The pipeline asks for pieces in order, so the k-th `pcmFor` call starts piece k's rendering.
    const started: number[] = [];
    const inference: number[] = [];
    const pieces: PieceTiming[] = [];
    await synthesizeToStream(
      {
        text: CALIBRATION_TEXT,
        params,
        format,
        ...(espeakBinary ? { espeakBinary } : {}),
        pcmFor: async (piece) => {
          const index = started.push(performance.now()) - 1;
          try {
            return await synthesizePiperPcm(voice, piece, DEFAULT_VOICE_SETTINGS, espeakBinary, false, 0, colour);
          } finally {
            inference[index] = (performance.now() - started[index]!) / 1000;
          }
        },
      },
      () => undefined,
      ({ index, durationSeconds }) => {
        pieces.push({
          renderSeconds: (performance.now() - started[index]!) / 1000,
          inferenceSeconds: inference[index] ?? 0,
          audioSeconds: durationSeconds,
        });
      },
    );
    return pieces;
  };
  return async (streams) => {
    const cpuBefore = process.cpuUsage();
    const wallBefore = performance.now();
    const timings = await Promise.all(Array.from({ length: streams }, oneStream));
    const cpu = process.cpuUsage(cpuBefore);
    return {
      streams: timings,
      wallSeconds: (performance.now() - wallBefore) / 1000,
      cpuSeconds: (cpu.user + cpu.system) / 1e6,
    };
  };
}
