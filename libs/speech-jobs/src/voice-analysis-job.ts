import type { CloneLimits, CloneOutcome } from '@platform/voice-analysis';

/**
 * Voice-sample analysis as a BullMQ job: the gateway adds it, a synthesis worker runs it. Job data and
 * result name GridFS files (the speech database's `voice_samples` bucket), never carry sample bytes: the
 * gateway writes an upload's files to the bucket and the worker reads them there, so a job's data stays
 * under a few kilobytes (at most 10 samples of names and ids) however large the upload.
 */
/**
 * The analysis queue is named after the synthesis queue (`<SYNTHESIS_QUEUE>-voice-analysis`): gateway and
 * workers that share a synthesis queue share it with no setting of its own, and tests that pass their own
 * synthesis queue never meet.
 */
export function voiceAnalysisQueue(synthesisQueue: string): string {
  return `${synthesisQueue}-voice-analysis`;
}

/** A sample file in the bucket, by its name in the upload and its GridFS file id (hex). */
export interface SampleFileRef {
  fileName: string;
  fileId: string;
}

export interface VoiceAnalysisJobData {
  voiceId: string;
  /** Samples the voice keeps (already stored): analysed with the new ones, not described again. */
  kept: SampleFileRef[];
  /** The upload's samples, written by the gateway under `<voiceId>/<file name>`, with the media type sniffed from their bytes. */
  added: (SampleFileRef & { mimeType: string })[];
  limits: CloneLimits;
}

/** An added sample as the voice document records it (`SampleDoc` with its file id as hex): size and SHA-256 measured by the worker. */
export interface AnalysedSample {
  sample_id: string;
  file_name: string;
  mime_type: string;
  size_bytes: number;
  hash: string;
  file_id: string;
}

/**
 * The job's answer: the outcome and, when the samples make a voice, the added ones described; or
 * `voice_changed` when a kept or added file was gone (another change of the voice dropped it meanwhile).
 */
export type VoiceAnalysisJobResult =
  { outcome: CloneOutcome; samples: AnalysedSample[] } | { failure: 'voice_changed'; message: string };

/**
 * The job id for one change of a voice: the same upload's files give the same id, so adding the job
 * twice (a retried request within a gateway) runs it once, and a re-run after a worker died answers
 * the same.
 */
export function voiceAnalysisJobId(data: Pick<VoiceAnalysisJobData, 'voiceId' | 'added'>): string {
  return `${data.voiceId}-${data.added.map((s) => s.fileId).join('-')}`;
}
