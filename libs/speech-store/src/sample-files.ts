import { createHash } from 'node:crypto';
import mongoose from 'mongoose';
import type { AnalysedSample, SampleFileRef } from '@platform/speech-jobs';
import type { SampleDoc } from './documents';
import { deleteFile, getFile, putFile } from './gridfs';
import { newId } from './ids';

// Loaded on its own (`@platform/speech-store/sample-files`) by the synthesis worker's voice-analysis thread,
// which reads and describes the samples it analyses: so nothing here may load the store's models or the rest
// of the library at run time.

/** The GridFS bucket of uploaded cloning samples. */
const SAMPLE_BUCKET = 'voice_samples';

type Bucket = mongoose.mongo.GridFSBucket;

/** The GridFS bucket of a speech database's cloning samples. */
export function sampleBucket(db: mongoose.mongo.Db): Bucket {
  return new mongoose.mongo.GridFSBucket(db, { bucketName: SAMPLE_BUCKET });
}

/** An uploaded sample to store. */
export interface SampleInput {
  fileName: string;
  mimeType: string;
  bytes: Uint8Array;
}

/**
 * Stores a voice's samples in GridFS (as `<voiceId>/<file name>`) and describes each as the voice document
 * records it, SHA-256 included. Hashing and writing tens of megabytes is work for a thread that serves no
 * requests (the gateway stages an upload's samples with `stageSampleFiles`, and the voice-analysis job hashes
 * them on a worker). If one fails, those already written are
 * removed and the failure is thrown.
 */
export async function storeSampleFiles(
  bucket: Bucket,
  voiceId: string,
  samples: readonly SampleInput[],
): Promise<SampleDoc[]> {
  const stored: SampleDoc[] = [];
  try {
    for (const sample of samples) {
      const bytes = Buffer.from(sample.bytes.buffer, sample.bytes.byteOffset, sample.bytes.byteLength);
      const fileId = await putFile(bucket, `${voiceId}/${sample.fileName}`, bytes, sample.mimeType);
      stored.push({
        sample_id: newId(),
        file_name: sample.fileName,
        mime_type: sample.mimeType,
        size_bytes: bytes.length,
        hash: createHash('sha256').update(bytes).digest('hex'),
        file_id: fileId,
      });
    }
  } catch (err) {
    await removeSampleFiles(bucket, stored);
    throw err;
  }
  return stored;
}

/** A stored sample's bytes; null when its file is gone (the sample was dropped by a change since). */
export function readSampleFile(bucket: Bucket, fileId: string): Promise<Buffer | null> {
  return getFile(bucket, new mongoose.Types.ObjectId(fileId));
}

/** Removes sample files; what is already gone is not an error. */
export async function removeSampleFiles(bucket: Bucket, samples: readonly Pick<SampleDoc, 'file_id'>[]): Promise<void> {
  await Promise.allSettled(samples.map((s) => deleteFile(bucket, s.file_id)));
}

/** A stored sample as plain data (its file id as hex), as a voice-analysis job's result carries it. */
export type SampleData = AnalysedSample;

export function sampleFromData(data: SampleData): SampleDoc {
  return { ...data, file_id: new mongoose.Types.ObjectId(data.file_id) };
}

/**
 * Writes an upload's samples to GridFS (as `<voiceId>/<file name>`, as `storeSampleFiles` does) without
 * measuring them: the voice-analysis job reads them back, and describes them (`describeSampleFile`) when
 * they make a voice. If one write fails, those already written are removed and the failure is thrown.
 */
export async function stageSampleFiles(
  bucket: Bucket,
  voiceId: string,
  samples: readonly SampleInput[],
): Promise<(SampleFileRef & { mimeType: string })[]> {
  const staged: (SampleFileRef & { mimeType: string; id: mongoose.Types.ObjectId })[] = [];
  try {
    for (const sample of samples) {
      const bytes = Buffer.from(sample.bytes.buffer, sample.bytes.byteOffset, sample.bytes.byteLength);
      const id = await putFile(bucket, `${voiceId}/${sample.fileName}`, bytes, sample.mimeType);
      staged.push({ fileName: sample.fileName, mimeType: sample.mimeType, fileId: id.toHexString(), id });
    }
  } catch (err) {
    await removeSampleFiles(
      bucket,
      staged.map((s) => ({ file_id: s.id })),
    );
    throw err;
  }
  return staged.map(({ fileName, mimeType, fileId }) => ({ fileName, mimeType, fileId }));
}

/** Removes staged samples (`stageSampleFiles`) that make no voice; what is already gone is not an error. */
export async function removeStagedSampleFiles(bucket: Bucket, staged: readonly SampleFileRef[]): Promise<void> {
  await removeSampleFiles(
    bucket,
    staged.map((s) => ({ file_id: new mongoose.Types.ObjectId(s.fileId) })),
  );
}

/** A staged sample (`stageSampleFiles`) as the voice document records it: its size and SHA-256 measured from its bytes. */
export function describeSampleFile(file: SampleFileRef & { mimeType: string }, bytes: Uint8Array): SampleData {
  return {
    sample_id: newId(),
    file_name: file.fileName,
    mime_type: file.mimeType,
    size_bytes: bytes.byteLength,
    hash: createHash('sha256').update(bytes).digest('hex'),
    file_id: file.fileId,
  };
}
