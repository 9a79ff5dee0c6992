import { randomBytes } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** 20 random alphanumerics, the shape of the hosted API's voice and history ids. */
export function newId(length = 20): string {
  const bytes = randomBytes(length * 2);
  let id = '';
  // Rejection sampling keeps every character equally likely (62 does not divide 256).
  for (const byte of bytes) {
    if (byte < 248) id += ALPHABET[byte % 62];
    if (id.length === length) return id;
  }
  return id + newId(length - id.length);
}

/** Ids we issue are alphanumeric; anything else cannot exist and is rejected before a query. */
export function isPlausibleId(value: string): boolean {
  return /^[A-Za-z0-9_-]{1,64}$/.test(value);
}
