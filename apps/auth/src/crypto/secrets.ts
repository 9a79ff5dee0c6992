import {
  createCipheriv,
  createDecipheriv,
  createHash,
  hkdfSync,
  randomBytes,
  scrypt,
  timingSafeEqual,
} from 'node:crypto';
import { createHashSlots, type HashSlots } from './hash-slots';

/** A high-entropy random token (base64url), optionally prefixed so it can be recognised in logs and scanners. */
export function randomToken(prefix = '', bytes = 32): string {
  return `${prefix}${randomBytes(bytes).toString('base64url')}`;
}

/**
 * SHA-256 of a high-entropy secret (tokens, codes, API keys, client secrets). These are random 256-bit
 * values, so a fast hash is enough to make a database leak useless; passwords use scrypt instead.
 */
export function sha256(value: string): string {
  return createHash('sha256').update(value).digest('base64url');
}

/** Constant-time string comparison (lengths are compared through the digests, so they leak nothing either). */
export function safeEqual(a: string, b: string): boolean {
  const da = createHash('sha256').update(a).digest();
  const db = createHash('sha256').update(b).digest();
  return timingSafeEqual(da, db);
}

// scrypt parameters: N=2^15, r=8, p=1 (32 MiB per hash) — OWASP's minimum-acceptable class, chosen
// so a login costs ~50 ms on this hardware. The parameters are stored with each hash so they can grow.
const SCRYPT = { N: 32768, r: 8, p: 1, keylen: 32, maxmem: 64 * 1024 * 1024 };

let hashSlots: HashSlots = createHashSlots(2, 32);

/** Sets this replica's bound on concurrent password hashes (crypto/hash-slots.ts), from the config at boot. */
export function limitPasswordHashing(concurrency: number, queue: number): void {
  hashSlots = createHashSlots(concurrency, queue);
}

function scryptAsync(password: string, salt: Buffer, N: number, r: number, p: number, keylen: number): Promise<Buffer> {
  return hashSlots.run(
    () =>
      new Promise<Buffer>((resolve, reject) => {
        scrypt(password, salt, keylen, { N, r, p, maxmem: SCRYPT.maxmem }, (err, key) =>
          err ? reject(err) : resolve(key),
        );
      }),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, SCRYPT.N, SCRYPT.r, SCRYPT.p, SCRYPT.keylen);
  return `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !n || !r || !p || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const key = await scryptAsync(
    password,
    Buffer.from(salt, 'base64url'),
    Number(n),
    Number(r),
    Number(p),
    expected.length,
  );
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** A password hash of a random password, verified against when an account does not exist, so timing does not reveal which emails exist. */
let dummyHash: Promise<string> | undefined;
export function dummyPasswordHash(): Promise<string> {
  dummyHash ??= hashPassword(randomToken());
  return dummyHash;
}

export interface Sealed {
  iv: string;
  tag: string;
  data: string;
}

/**
 * AES-256-GCM with a key derived (HKDF-SHA256) from INTERNAL_SECRET and a purpose label, for the few
 * secrets the server must be able to read back: signing private keys, client secrets (needed to verify
 * client_secret_jwt HMACs). Whoever reads the database without INTERNAL_SECRET learns nothing.
 */
export function sealer(masterSecret: string, purpose: string) {
  const key = Buffer.from(hkdfSync('sha256', masterSecret, 'platform-auth', purpose, 32));
  return {
    seal(plain: string): Sealed {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return {
        iv: iv.toString('base64url'),
        tag: cipher.getAuthTag().toString('base64url'),
        data: data.toString('base64url'),
      };
    },
    open(sealed: Sealed): string {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(sealed.iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(sealed.tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(sealed.data, 'base64url')), decipher.final()]).toString('utf8');
    },
  };
}
