import { crc32 } from 'node:zlib';

/**
 * A ZIP archive (APPNOTE.TXT 6.3, PKWARE) of stored entries: no compression, since the entries are
 * already compressed audio or raw PCM that deflate barely shrinks. Entries are written one after
 * another as they come (each one's CRC-32 and size are known when it is added), and the central
 * directory at the end, so an archive of many files never has to be held in memory whole.
 * No ZIP64: every size and offset must stay under 4 GiB, and there are at most 65 535 entries.
 */
interface StoredZip {
  /** The local header and the bytes of one entry. */
  entry(name: string, data: Buffer, modified: Date): Buffer;
  /** The central directory and its end record; nothing may be added afterwards. */
  end(): Buffer;
}

const VERSION = 20; // 2.0: the version of the format these records follow
const UTF8_NAMES = 0x0800; // general purpose bit 11: the file name is UTF-8
const LIMIT = 0xffff_ffff;

/** MS-DOS date and time (two-second resolution, years 1980–2107), as ZIP records them. */
function dosDateTime(date: Date): { time: number; date: number } {
  const year = Math.min(Math.max(date.getUTCFullYear(), 1980), 2107);
  return {
    time: (date.getUTCHours() << 11) | (date.getUTCMinutes() << 5) | Math.floor(date.getUTCSeconds() / 2),
    date: ((year - 1980) << 9) | ((date.getUTCMonth() + 1) << 5) | date.getUTCDate(),
  };
}

export function storedZip(): StoredZip {
  const central: Buffer[] = [];
  let offset = 0;
  let count = 0;
  return {
    entry(name, data, modified) {
      const fileName = Buffer.from(name, 'utf8');
      const crc = crc32(data);
      const { time, date } = dosDateTime(modified);
      if (offset + 30 + fileName.length + data.length > LIMIT || count === 0xffff)
        throw new Error('ZIP archive too large (no ZIP64)');
      // The fields the local header (from byte 4) and the central directory's (from byte 6) share.
      const common = (record: Buffer, at: number) => {
        record.writeUInt16LE(VERSION, at);
        record.writeUInt16LE(UTF8_NAMES, at + 2);
        record.writeUInt16LE(0, at + 4); // method 0: stored
        record.writeUInt16LE(time, at + 6);
        record.writeUInt16LE(date, at + 8);
        record.writeUInt32LE(crc, at + 10);
        record.writeUInt32LE(data.length, at + 14); // compressed size
        record.writeUInt32LE(data.length, at + 18);
        record.writeUInt16LE(fileName.length, at + 22);
        return record;
      };
      const local = Buffer.alloc(30);
      local.writeUInt32LE(0x04034b50, 0);
      common(local, 4); // then extra length 0
      const header = Buffer.alloc(46);
      header.writeUInt32LE(0x02014b50, 0);
      header.writeUInt16LE(VERSION, 4); // version made by
      common(header, 6);
      // extra length, comment length, disk number, internal and external attributes: all 0
      header.writeUInt32LE(offset, 42);
      central.push(header, fileName);
      const written = Buffer.concat([local, fileName, data]);
      offset += written.length;
      count += 1;
      return written;
    },
    end() {
      const directory = Buffer.concat(central);
      const record = Buffer.alloc(22);
      record.writeUInt32LE(0x06054b50, 0);
      record.writeUInt16LE(count, 8);
      record.writeUInt16LE(count, 10);
      record.writeUInt32LE(directory.length, 12);
      record.writeUInt32LE(offset, 16);
      return Buffer.concat([directory, record]);
    },
  };
}
