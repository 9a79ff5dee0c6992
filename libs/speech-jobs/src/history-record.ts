import type { VoiceSettings } from '@platform/speech-engine';
import type { SynthesisJobData } from './job';

/** How a generation ended, as its history item says. */
export type HistoryState = 'complete' | 'failed' | 'cancelled';

/**
 * A record of a generation, keyed by its job id. The worker hands one over when a job it ran ends;
 * the gateway hands one over when the client did not get the whole audio (the worker died, the job
 * failed, the client went away or stopped reading). See docs/speech.md, History, for how two
 * records of one job meet.
 */
export interface HistoryRecord {
  historyItemId: string;
  accountId?: string;
  voiceId: string;
  voiceName: string;
  modelId: string;
  text: string;
  characterCount: number;
  settings: VoiceSettings;
  outputFormat: string;
  contentType: string;
  state: HistoryState;
  /**
   * The exact bytes produced (complete: the whole file the client received; failed or cancelled:
   * what the worker had produced when it stopped). The gateway's records carry none (empty).
   */
  audio: Buffer;
  createdAtUnix: number;
  /** The same instant in milliseconds: orders history items created within one second. */
  createdAtMs?: number;
}

/** What a history record is built from: the job as the gateway enqueued it. */
export type HistoryJob = Pick<
  SynthesisJobData,
  'jobId' | 'accountId' | 'voice' | 'modelId' | 'text' | 'settings' | 'outputFormat' | 'createdAt'
>;

/**
 * The one way to build a job's history record, for the worker (the job it ran) and the gateway
 * (a job whose client did not get the whole audio): both describe the same generation alike.
 */
export function historyRecord(
  job: HistoryJob,
  result: { state: HistoryState; contentType: string; audio?: Buffer },
): HistoryRecord {
  return {
    historyItemId: job.jobId,
    ...(job.accountId ? { accountId: job.accountId } : {}),
    voiceId: job.voice.voiceId,
    voiceName: job.voice.name,
    modelId: job.modelId,
    text: job.text,
    characterCount: [...job.text].length,
    settings: job.settings,
    outputFormat: job.outputFormat,
    contentType: result.contentType,
    state: result.state,
    audio: result.audio ?? Buffer.alloc(0),
    createdAtUnix: Math.floor(job.createdAt / 1000),
    createdAtMs: job.createdAt,
  };
}
