import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import mongoose from 'mongoose';

type Bucket = mongoose.mongo.GridFSBucket;

export async function putFile(bucket: Bucket, filename: string, bytes: Buffer, contentType: string): Promise<mongoose.Types.ObjectId> {
  const upload = bucket.openUploadStream(filename, { metadata: { contentType } });
  await pipeline(Readable.from([bytes]), upload);
  return upload.id;
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
