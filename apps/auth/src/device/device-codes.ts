import { randomInt } from 'node:crypto';
import type { Deps } from '../deps';
import { randomToken, sha256 } from '../crypto/secrets';

/**
 * RFC 8628 device authorization state in Redis. The record outlives `expires_in` by a grace period so
 * a late poll gets `expired_token` rather than `invalid_grant`.
 */
export interface DeviceRecord {
  clientId: string;
  scopes: string[];
  audience: string[];
  userCode: string;
  status: 'pending' | 'approved' | 'denied' | 'used';
  sub?: string;
  expiresAt: number; // ms
  interval: number; // seconds
  lastPollAt?: number; // ms
}

// RFC 8628 §6.1: consonants only (no vowels → no words, no 0/O 1/I confusion), 8 characters ≈ 34 bits.
const ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
const GRACE_SECONDS = 600;

export const deviceKey = (deviceCode: string) => `auth:device:${sha256(deviceCode)}`;
const userCodeKey = (normalized: string) => `auth:user-code:${normalized}`;

export function normalizeUserCode(input: string): string | undefined {
  const clean = input.toUpperCase().replace(/[^A-Z]/g, '');
  return clean.length === 8 && [...clean].every((c) => ALPHABET.includes(c)) ? clean : undefined;
}

export function formatUserCode(normalized: string): string {
  return `${normalized.slice(0, 4)}-${normalized.slice(4)}`;
}

export async function createDeviceAuthorization(
  deps: Deps,
  input: { clientId: string; scopes: string[]; audience: string[] },
) {
  const deviceCode = randomToken('dc_');
  let userCode = '';
  for (let attempt = 0; attempt < 5; attempt++) {
    userCode = Array.from({ length: 8 }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');
    const set = await deps.redis.set(
      userCodeKey(userCode),
      sha256(deviceCode),
      'EX',
      deps.config.DEVICE_CODE_TTL,
      'NX',
    );
    if (set === 'OK') break;
    userCode = '';
  }
  if (!userCode) throw new Error('could not allocate a unique user code');
  const record: DeviceRecord = {
    ...input,
    userCode,
    status: 'pending',
    expiresAt: Date.now() + deps.config.DEVICE_CODE_TTL * 1000,
    interval: deps.config.DEVICE_POLL_INTERVAL,
  };
  await deps.redis.set(
    deviceKey(deviceCode),
    JSON.stringify(record),
    'EX',
    deps.config.DEVICE_CODE_TTL + GRACE_SECONDS,
  );
  return { deviceCode, userCode: formatUserCode(userCode), record };
}

export async function readDevice(deps: Deps, key: string): Promise<DeviceRecord | null> {
  const raw = await deps.redis.get(key);
  return raw ? (JSON.parse(raw) as DeviceRecord) : null;
}

export async function writeDevice(deps: Deps, key: string, record: DeviceRecord): Promise<void> {
  await deps.redis.set(key, JSON.stringify(record), 'KEEPTTL');
}

/** The device record a user code points at (pending and unexpired), with its Redis key. */
export async function findByUserCode(
  deps: Deps,
  normalized: string,
): Promise<{ key: string; record: DeviceRecord } | null> {
  const hash = await deps.redis.get(userCodeKey(normalized));
  if (!hash) return null;
  const key = `auth:device:${hash}`;
  const record = await readDevice(deps, key);
  if (!record || record.status !== 'pending' || record.expiresAt <= Date.now()) return null;
  return { key, record };
}

/** A user code works once: approving or denying retires it. */
export async function retireUserCode(deps: Deps, normalized: string): Promise<void> {
  await deps.redis.del(userCodeKey(normalized));
}
