import { createCipheriv, createDecipheriv, hkdfSync, randomFillSync } from 'node:crypto';

/**
 * Sealing of page cursors. A keyset cursor has to carry the sort value of its item (connections.ts),
 * and that value can be one the caller may not read, or simply more than a client should learn from
 * a token meant to be opaque. So the cursor is encrypted and authenticated: AES-256-GCM under a key
 * derived (HKDF-SHA256, its own label) from INTERNAL_SECRET, which every replica shares, so a
 * cursor issued by one replica opens on any other, and a cursor issued before a change of the secret
 * is refused like any forged one. The additional data binds a cursor to its purpose (the sort it
 * positions), so it cannot be replayed into another order.
 *
 * Layout (base64url): version (1 byte) ‖ IV (12) ‖ tag (16) ‖ ciphertext.
 */
export interface CursorCodec {
  seal(plaintext: string, purpose: string): string;
  /** The plaintext, or null for anything this codec did not seal for `purpose`. */
  open(cursor: string, purpose: string): string | null;
}

const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const HEADER = 1 + IV_BYTES + TAG_BYTES;
/** Longest cursor accepted: a 255-character title of 3-byte characters, sealed, fits with room to spare. */
const MAX_CURSOR_LENGTH = 4096;

/**
 * Random IVs, drawn from the system's generator 256 at a time: a page seals one cursor per edge, and one
 * generator call per cursor was the largest single cost of an uncached GraphQL page (7 % of content's
 * CPU in a profile). Each IV is still 96 fresh random bits, used once.
 */
function ivSource(): () => Buffer {
  const pool = Buffer.alloc(IV_BYTES * 256);
  let offset = pool.length;
  return () => {
    if (offset === pool.length) {
      randomFillSync(pool);
      offset = 0;
    }
    const iv = Buffer.from(pool.subarray(offset, offset + IV_BYTES));
    offset += IV_BYTES;
    return iv;
  };
}

export function createCursorCodec(secret: string): CursorCodec {
  const key = Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), 'content graphql page cursor v1', 32));
  const nextIv = ivSource();
  return {
    seal(plaintext, purpose) {
      const iv = nextIv();
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(purpose, 'utf8'));
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return Buffer.concat([Buffer.from([VERSION]), iv, cipher.getAuthTag(), body]).toString('base64url');
    },
    open(cursor, purpose) {
      if (typeof cursor !== 'string' || cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor))
        return null;
      const raw = Buffer.from(cursor, 'base64url');
      if (raw.length < HEADER || raw[0] !== VERSION) return null;
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(1, 1 + IV_BYTES), {
          authTagLength: TAG_BYTES,
        });
        decipher.setAAD(Buffer.from(purpose, 'utf8'));
        decipher.setAuthTag(raw.subarray(1 + IV_BYTES, HEADER));
        return Buffer.concat([decipher.update(raw.subarray(HEADER)), decipher.final()]).toString('utf8');
      } catch {
        // A wrong tag (tampered, forged, another key or purpose) is a refusal, not a failure.
        return null;
      }
    },
  };
}
