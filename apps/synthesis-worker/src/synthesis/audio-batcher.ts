/**
 * LAME hands over MP3 data in many small pieces. This gathers what arrives within one turn of
 * the event loop (or up to `maxBytes`) into one frame, and writes frames strictly in order.
 */
export function createAudioBatcher(write: (data: Buffer) => Promise<void>, maxBytes = 16 * 1024) {
  let parts: Buffer[] = [];
  let size = 0;
  let scheduled = false;
  let chain: Promise<void> = Promise.resolve();
  let failure: unknown = null;

  const flush = () => {
    scheduled = false;
    if (size === 0) return;
    const data = Buffer.concat(parts);
    parts = [];
    size = 0;
    chain = chain
      .then(() => write(data))
      .catch((err: unknown) => {
        failure ??= err;
      });
  };

  return {
    push(data: Buffer) {
      parts.push(data);
      size += data.length;
      if (size >= maxBytes) flush();
      else if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    /** Runs `write` after every frame pushed so far (markers that must follow their audio). */
    then(write: () => Promise<void>) {
      flush();
      chain = chain.then(write).catch((err: unknown) => {
        failure ??= err;
      });
    },
    /** Writes what is left and resolves when every frame is stored (rejects on a write failure). */
    async done() {
      flush();
      await chain;
      if (failure) throw failure instanceof Error ? failure : new Error(String(failure));
    },
  };
}
