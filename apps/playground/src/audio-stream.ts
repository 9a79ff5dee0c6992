/**
 * Plays an MP3 response while it downloads: each chunk goes into a Media Source Extensions buffer as it
 * arrives, and playback starts with the first. Where the browser cannot feed MP3 to MSE, the whole file
 * is collected and then played (said in the result).
 */
interface StreamResult {
  chunks: number;
  bytes: number;
  /** Milliseconds from the request to the first audio handed to the player. */
  firstAudioMs: number;
  totalMs: number;
  streamed: boolean;
}

const MP3 = 'audio/mpeg';

function appended(buffer: SourceBuffer, chunk: Uint8Array): Promise<void> {
  return new Promise((resolve, reject) => {
    buffer.addEventListener('updateend', () => resolve(), { once: true });
    buffer.addEventListener('error', () => reject(new Error('the browser could not decode the audio')), { once: true });
    buffer.appendBuffer(chunk as Uint8Array<ArrayBuffer>);
  });
}

function opened(source: MediaSource): Promise<void> {
  return new Promise((resolve) => source.addEventListener('sourceopen', () => resolve(), { once: true }));
}

export async function playStreaming(
  audio: HTMLAudioElement,
  response: Response,
  startedAt: number,
): Promise<StreamResult> {
  const reader = response.body!.getReader();
  let chunks = 0;
  let bytes = 0;
  let firstAudioMs = -1;
  if (!('MediaSource' in window) || !MediaSource.isTypeSupported(MP3)) {
    const parts: Uint8Array[] = [];
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      parts.push(next.value);
      chunks += 1;
      bytes += next.value.byteLength;
    }
    audio.src = URL.createObjectURL(new Blob(parts as BlobPart[], { type: MP3 }));
    firstAudioMs = performance.now() - startedAt;
    await audio.play();
    return { chunks, bytes, firstAudioMs, totalMs: firstAudioMs, streamed: false };
  }
  const source = new MediaSource();
  audio.src = URL.createObjectURL(source);
  await opened(source);
  const buffer = source.addSourceBuffer(MP3);
  for (let next = await reader.read(); !next.done; next = await reader.read()) {
    await appended(buffer, next.value);
    chunks += 1;
    bytes += next.value.byteLength;
    if (chunks === 1) {
      firstAudioMs = performance.now() - startedAt;
      // Playback starts with the first chunk while the rest is still downloading.
      void audio.play().catch(() => undefined);
    }
  }
  if (source.readyState === 'open') source.endOfStream();
  return { chunks, bytes, firstAudioMs, totalMs: performance.now() - startedAt, streamed: true };
}
