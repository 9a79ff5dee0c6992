/**
 * Ogg Opus from a second encoding differs from the first only in each page's stream serial number
 * (ffmpeg picks a random one per stream) and so in each page's checksum. A worker that takes over
 * an Opus job gives its pages the serial of the pages already sent (RFC 3533, section 6: bytes
 * 14-17, checksum at 22-25), so its output continues them byte for byte.
 */
export function restampOggSerial(serial: Buffer): (chunk: Buffer) => Buffer {
  let pending: Buffer = Buffer.alloc(0);
  let broken = false;
  return (chunk) => {
    // Not an Ogg stream after all: passed on unchanged, the byte comparison of resume.ts refuses it.
    if (broken) return chunk;
    pending = pending.length > 0 ? Buffer.concat([pending, chunk]) : chunk;
    const pages: Buffer[] = [];
    let at = 0;
    while (pending.length - at >= 27) {
      if (pending.toString('latin1', at, at + 4) !== 'OggS') {
        broken = true;
        pages.push(pending.subarray(at));
        at = pending.length;
        break;
      }
      const segments = pending[at + 26]!;
      if (pending.length - at < 27 + segments) break;
      let end = at + 27 + segments;
      for (let i = 0; i < segments; i++) end += pending[at + 27 + i]!;
      if (pending.length < end) break;
      const page = Buffer.from(pending.subarray(at, end));
      serial.copy(page, 14, 0, 4);
      page.writeUInt32LE(0, 22);
      page.writeUInt32LE(oggChecksum(page), 22);
      pages.push(page);
      at = end;
    }
    pending = pending.subarray(at);
    return Buffer.concat(pages);
  };
}

/** CRC-32 as Ogg defines it: polynomial 0x04c11db7, no reflection, initial value and final XOR 0. */
const CRC_TABLE = Uint32Array.from({ length: 256 }, (_, i) => {
  let r = i << 24;
  for (let bit = 0; bit < 8; bit++) r = r & 0x80000000 ? (r << 1) ^ 0x04c11db7 : r << 1;
  return r >>> 0;
});

function oggChecksum(page: Buffer): number {
  let crc = 0;
  for (const byte of page) crc = ((crc << 8) ^ CRC_TABLE[((crc >>> 24) ^ byte) & 0xff]!) >>> 0;
  return crc;
}
