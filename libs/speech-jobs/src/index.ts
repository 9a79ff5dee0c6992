export { SYNTHESIS_QUEUE, DEFAULT_KEY_PREFIX, JOB_KEY_TTL_SECONDS, audioStreamKey, cancelKey, isJobId, newJobId } from './naming';
export type { SynthesisJobData } from './job';
export { encodeFrame, decodeFrame, isLastFrame, type ChunkFrame, type FrameBody } from './frames';
export { createFrameWriter, type FrameWriter } from './frame-writer';
export { readFrames, createBlockingPool, FrameTimeoutError, type ReadFramesOptions, type BlockingPool } from './frame-reader';
export type {
  ResolvedVoice,
  ResolveVoice,
  QuotaReservation,
  QuotaHooks,
  RecordHistory,
  SpeechHooks,
} from './pipeline-hooks';
export { historyRecord, type HistoryRecord, type HistoryJob, type HistoryState } from './history-record';
