import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type mongoose from 'mongoose';

type Bucket = mongoose.mongo.GridFSBucket;

/** GridFS's default chunk size (255 KiB). */
const CHUNK_BYTES = 255 * 1024;

/**
 * Stores `bytes` as one GridFS file. Written one chunk at a time: handed the whole buffer at once,
 * the upload stream would cut and serialise every chunk of a 10 MB sample in one synchronous loop,
 * holding the event loop for the lot.
 */
export async function putFile(
  bucket: Bucket,
  filename: string,
  bytes: Buffer,
  contentType: string,
): Promise<mongoose.Types.ObjectId> {
  const upload = bucket.openUploadStream(filename, { metadata: { contentType }, chunkSizeBytes: CHUNK_BYTES });
  await pipeline(Readable.from(chunksOf(bytes)), upload);
  return upload.id;
}

function* chunksOf(bytes: Buffer): Generator<Buffer> {
  for (let offset = 0; offset < bytes.length; offset += CHUNK_BYTES) yield bytes.subarray(offset, offset + CHUNK_BYTES);
  if (bytes.length === 0) yield bytes;
}

export async function getFile(bucket: Bucket, id: mongoose.Types.ObjectId): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of bucket.openDownloadStream(id)) chunks.push(chunk as Buffer);
  } catch (err) {
    if (isFileNotFound(err)) return null;
    throw err;
  }
  return Buffer.concat(chunks);
}

/** Deleting what is already gone is not an error: deletes are retried and raced. */
export async function deleteFile(bucket: Bucket, id: mongoose.Types.ObjectId): Promise<void> {
  try {
    await bucket.delete(id);
  } catch (err) {
    if (!isFileNotFound(err)) throw err;
  }
}

function isFileNotFound(err: unknown): boolean {
  return err instanceof Error && /FileNotFound|File not found/i.test(`${err.name} ${err.message}`);
}
