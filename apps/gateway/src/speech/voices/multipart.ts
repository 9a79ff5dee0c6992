import busboy from 'busboy';
import type { Request } from 'express';
import { SpeechError } from '@platform/errors';
import { UPLOAD_LIMITS } from './upload-limits';

export interface UploadedFile {
  fileName: string;
  declaredType: string;
  bytes: Buffer;
}

export interface ParsedUpload {
  fields: Map<string, string>;
  files: UploadedFile[];
}

/** After this many bytes of files the read pauses for one turn of the event loop. */
const YIELD_EVERY_BYTES = 1024 * 1024;

function bad(message: string): SpeechError {
  return new SpeechError(400, 'bad_request', message);
}

/** What a form's upload may hold, in the shape of the voice form's limits (`VOICE_UPLOAD_LIMITS`). */
export interface UploadForm {
  limits: Record<'maxFiles' | 'maxFileBytes' | 'maxTotalBytes' | 'maxFields' | 'maxFieldBytes', number>;
  /** The field files come in (also accepted with `[]` after it). */
  fileField: string;
  /** The body the files are in, for messages ("per voice"). */
  per: string;
}

const VOICE_FORM: UploadForm = { limits: UPLOAD_LIMITS, fileField: 'files', per: 'voice' };

/**
 * Reads a `multipart/form-data` upload into memory with busboy, enforcing every limit while
 * the bytes stream in: too many files or fields, a file or field too large, or a total past the
 * bound stop the read with a 400. Files must come in the form's field (a voice's `files`; `files[]` is accepted).
 */
export function parseVoiceUpload(req: Request, form: UploadForm = VOICE_FORM): Promise<ParsedUpload> {
  const UPLOAD_LIMITS = form.limits;
  return new Promise((resolve, reject) => {
    const type = req.headers['content-type'] ?? '';
    if (!/^multipart\/form-data/i.test(type)) {
      reject(bad('The request must be multipart/form-data.'));
      return;
    }
    const declared = Number(req.headers['content-length'] ?? '0');
    if (declared > UPLOAD_LIMITS.maxTotalBytes + 1024 * 1024) {
      reject(bad(`The upload is larger than ${UPLOAD_LIMITS.maxTotalBytes / 1024 / 1024} MB.`));
      return;
    }
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        limits: {
          files: UPLOAD_LIMITS.maxFiles,
          fileSize: UPLOAD_LIMITS.maxFileBytes,
          fields: UPLOAD_LIMITS.maxFields,
          fieldSize: UPLOAD_LIMITS.maxFieldBytes,
          parts: UPLOAD_LIMITS.maxFiles + UPLOAD_LIMITS.maxFields,
          fieldNameSize: 100,
        },
      });
    } catch {
      reject(bad('The multipart body could not be read (missing boundary?).'));
      return;
    }
    const fields = new Map<string, string>();
    const files: UploadedFile[] = [];
    let total = 0;
    let sinceYield = 0;
    let failed = false;
    const fail = (err: SpeechError) => {
      if (failed) return;
      failed = true;
      req.unpipe(parser);
      // Drain the rest so the client sees the answer instead of a reset connection.
      req.resume();
      reject(err);
    };
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated)
        return fail(bad(`The field ${name} is longer than ${UPLOAD_LIMITS.maxFieldBytes} bytes.`));
      if (fields.has(name)) return fail(bad(`The field ${name} is given more than once.`));
      fields.set(name, value);
    });
    parser.on('file', (name, stream, info) => {
      if (name !== form.fileField && name !== `${form.fileField}[]`) {
        stream.resume();
        return fail(bad(`Unexpected file field ${name}; upload in the field "${form.fileField}".`));
      }
      const chunks: Buffer[] = [];
      stream.on('error', () => fail(bad('The multipart body is malformed.')));
      stream.on('data', (chunk: Buffer) => {
        total += chunk.length;
        if (total > UPLOAD_LIMITS.maxTotalBytes)
          return fail(bad(`The files together are larger than ${UPLOAD_LIMITS.maxTotalBytes / 1024 / 1024} MB.`));
        chunks.push(chunk);
        // A fast client's upload arrives as a burst of reads that would all be handled in one turn of
        // the event loop; pausing every megabyte lets other requests in between.
        sinceYield += chunk.length;
        if (sinceYield >= YIELD_EVERY_BYTES && !failed) {
          sinceYield = 0;
          req.pause();
          setImmediate(() => {
            if (!failed) req.resume();
          });
        }
      });
      stream.on('limit', () =>
        fail(bad(`The file ${info.filename ?? ''} is larger than ${UPLOAD_LIMITS.maxFileBytes / 1024 / 1024} MB.`)),
      );
      stream.on('end', () => {
        if (!failed)
          files.push({
            fileName: sanitizeFileName(info.filename),
            declaredType: info.mimeType,
            bytes: Buffer.concat(chunks),
          });
      });
    });
    parser.on('filesLimit', () => fail(bad(`At most ${UPLOAD_LIMITS.maxFiles} files per ${form.per}.`)));
    parser.on('fieldsLimit', () => fail(bad(`At most ${UPLOAD_LIMITS.maxFields} fields.`)));
    parser.on('partsLimit', () => fail(bad('Too many parts.')));
    parser.on('error', () => fail(bad('The multipart body is malformed.')));
    parser.on('close', () => {
      if (!failed) resolve({ fields, files });
    });
    req.on('error', () => fail(bad('The upload was interrupted.')));
    req.pipe(parser);
  });
}

/** A display name only: path parts and control characters removed, bounded. */
function sanitizeFileName(name: string | undefined): string {
  const base = (name ?? '')
    .split(/[\\/]/)
    .pop()!
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .trim();
  return (base || 'sample').slice(0, 200);
}
