export {
  SYNTHESIS_QUEUE,
  DEFAULT_KEY_PREFIX,
  JOB_KEY_TTL_SECONDS,
  audioStreamKey,
  cancelKey,
  ownerKey,
  pcmCheckpointKey,
  resumesKey,
  isJobId,
  newJobId,
} from './naming';
export type { SynthesisJobData } from './job';
export { encodeFrame, decodeFrame, isLastFrame, UNAVAILABLE_STATUS, type ChunkFrame, type FrameBody } from './frames';
export { createFrameWriter, SupersededError, type FrameWriter, type FrameWriterOptions } from './frame-writer';
export { claimJob, endJob, refuseUnstartedJob, type JobProgress } from './job-progress';
export {
  readFrames,
  createBlockingPool,
  FrameTimeoutError,
  type ReadFramesOptions,
  type BlockingPool,
} from './frame-reader';
export type {
  ResolvedVoice,
  ResolveVoice,
  QuotaReservation,
  QuotaHooks,
  RecordHistory,
  SpeechHooks,
  PronunciationLocator,
  ResolvePronunciation,
} from './pipeline-hooks';
export { historyRecord, type HistoryRecord, type HistoryJob, type HistoryState } from './history-record';
export {
  voiceAnalysisQueue,
  voiceAnalysisJobId,
  type AnalysedSample,
  type SampleFileRef,
  type VoiceAnalysisJobData,
  type VoiceAnalysisJobResult,
} from './voice-analysis-job';
