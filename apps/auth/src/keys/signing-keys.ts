import { exportJWK, generateKeyPair, importJWK, type JWK, type KeyLike } from 'jose';
import { randomUUID } from 'node:crypto';
import { Schema, type Connection, type Model } from 'mongoose';
import { sealer, type Sealed } from '../crypto/secrets';

/**
 * ES256 signing keys. All keys live in ONE document (`_id: "keyset"`): the set is read whole, so every
 * replica sees a consistent current/previous pair, and creation (an upsert) and rotation (an update
 * conditional on the version read) are each one atomic write that needs no transaction.
 * Private keys are sealed with AES-256-GCM under a key derived from INTERNAL_SECRET.
 */
interface StoredKey {
  kid: string;
  publicJwk: JWK;
  privateSealed: Sealed;
  createdAt: Date;
}
interface KeySetDoc {
  _id: string;
  version: number;
  current: StoredKey;
  previous?: StoredKey | null;
}

const keySetSchema = new Schema<KeySetDoc>(
  { _id: String, version: Number, current: Schema.Types.Mixed, previous: Schema.Types.Mixed },
  { collection: 'signing_keys', versionKey: false },
);

interface SigningKeyOptions {
  /** A current key older than this is rotated at the next load. */
  rotateAfterSeconds: number;
  /** How long a replica keeps the key set before rereading it (30 s). */
  cacheSeconds?: number;
  /**
   * A new key is published in /jwks this long before it signs anything (70 s): longer than this
   * cache plus a resource server's JWKS refetch cooldown (30 s in libs/oauth-resource), so no
   * verifier meets a `kid` it cannot fetch yet. Until then the previous key keeps signing.
   */
  activationDelaySeconds?: number;
}

interface ActiveKey {
  kid: string;
  privateKey: KeyLike;
}

export interface SigningKeys {
  /** The key new tokens are signed with. */
  current(): Promise<ActiveKey>;
  /** Public keys that verify tokens in flight: current and previous. */
  jwks(): Promise<{ keys: JWK[] }>;
  /** Public key by kid (for verifying our own tokens). */
  publicKey(kid: string): Promise<KeyLike | undefined>;
  rotate(): Promise<string>;
  /** Every key of the set, newest first, with what it does now (admin API; no private material). */
  list(): Promise<KeyInfo[]>;
  /**
   * Takes the previous key out of the set at once (a key suspected compromised): it leaves /jwks and
   * auth stops accepting tokens it signed. The current key cannot be retired (rotate first).
   */
  retire(kid: string): Promise<'retired' | 'current' | 'unknown'>;
}

export interface KeyInfo {
  kid: string;
  alg: string;
  created_at: string;
  /** `current`: newest; `previous`: still in /jwks for tokens in flight. */
  status: 'current' | 'previous';
  /** Whether new tokens are signed with it now (a new key waits KEY_ACTIVATION_DELAY). */
  signing: boolean;
}

const ALG = 'ES256';

export function signingKeys(conn: Connection, internalSecret: string, options: SigningKeyOptions): SigningKeys {
  const { rotateAfterSeconds } = options;
  const cacheMs = (options.cacheSeconds ?? 30) * 1000;
  const activationMs = (options.activationDelaySeconds ?? 70) * 1000;
  const model = (conn.models.KeySet as Model<KeySetDoc> | undefined) ?? conn.model<KeySetDoc>('KeySet', keySetSchema);
  const box = sealer(internalSecret, 'signing-key-encryption');
  // Imported KeyLike objects are cached with the set: importing a JWK costs more than signing.
  let cache: { at: number; doc: KeySetDoc; privates: Map<string, KeyLike>; publics: Map<string, KeyLike> } | undefined;

  async function newKey(): Promise<StoredKey> {
    const { publicKey, privateKey } = await generateKeyPair(ALG, { extractable: true });
    const kid = randomUUID();
    const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: ALG, use: 'sig' };
    const privateJwk = await exportJWK(privateKey);
    return { kid, publicJwk, privateSealed: box.seal(JSON.stringify(privateJwk)), createdAt: new Date() };
  }

  async function load(force = false): Promise<NonNullable<typeof cache>> {
    if (!force && cache && Date.now() - cache.at < cacheMs) return cache;
    let doc = (await model.findById('keyset').lean()) as KeySetDoc | null;
    if (!doc) {
      // Two replicas booting at once: both try to insert; the unique _id lets exactly one win.
      const fresh = await newKey();
      await model
        .updateOne(
          { _id: 'keyset' },
          { $setOnInsert: { version: 1, current: fresh, previous: null } },
          { upsert: true },
        )
        .catch((err: unknown) => {
          if (!(err instanceof Error && /E11000|duplicate key/.test(err.message))) throw err;
        });
      doc = (await model.findById('keyset').lean()) as KeySetDoc;
    }
    if (Date.now() - new Date(doc.current.createdAt).getTime() > rotateAfterSeconds * 1000) {
      await rotateFrom(doc);
      doc = (await model.findById('keyset').lean()) as KeySetDoc;
    }
    const publics = new Map<string, KeyLike>();
    const privates = new Map<string, KeyLike>();
    for (const k of [doc.current, doc.previous]) {
      if (!k) continue;
      publics.set(k.kid, cache?.publics.get(k.kid) ?? ((await importJWK(k.publicJwk, ALG)) as KeyLike));
      privates.set(
        k.kid,
        cache?.privates.get(k.kid) ?? ((await importJWK(JSON.parse(box.open(k.privateSealed)) as JWK, ALG)) as KeyLike),
      );
    }
    cache = { at: Date.now(), doc, privates, publics };
    return cache;
  }

  async function rotateFrom(doc: KeySetDoc): Promise<void> {
    const fresh = await newKey();
    // Conditional on the version we read, so concurrent rotations do not push the previous key out twice.
    await model.updateOne(
      { _id: 'keyset', version: doc.version },
      { $set: { current: fresh, previous: doc.current, version: doc.version + 1 } },
    );
  }

  return {
    async current() {
      const c = await load();
      const { current, previous } = c.doc;
      const signer = previous && Date.now() - new Date(current.createdAt).getTime() < activationMs ? previous : current;
      return { kid: signer.kid, privateKey: c.privates.get(signer.kid)! };
    },
    async jwks() {
      const c = await load();
      return { keys: [c.doc.current.publicJwk, ...(c.doc.previous ? [c.doc.previous.publicJwk] : [])] };
    },
    async publicKey(kid) {
      const c = await load();
      if (c.publics.has(kid)) return c.publics.get(kid);
      // A key rotated in by another replica within the cache window. Rereading is throttled (1 s),
      // so tokens with made-up kids cannot turn into one database read each.
      if (Date.now() - c.at < 1000) return undefined;
      return (await load(true)).publics.get(kid);
    },
    async rotate() {
      const c = await load(true);
      await rotateFrom(c.doc);
      return (await load(true)).doc.current.kid;
    },
    async list() {
      const { doc } = await load(true);
      const signer = (await this.current()).kid;
      const info = (k: StoredKey, status: KeyInfo['status']): KeyInfo => ({
        kid: k.kid,
        alg: ALG,
        created_at: new Date(k.createdAt).toISOString(),
        status,
        signing: k.kid === signer,
      });
      return [info(doc.current, 'current'), ...(doc.previous ? [info(doc.previous, 'previous')] : [])];
    },
    async retire(kid) {
      const { doc } = await load(true);
      if (doc.current.kid === kid) return 'current';
      if (doc.previous?.kid !== kid) return 'unknown';
      // Conditional on the version read, like a rotation: a concurrent rotation wins and this retires nothing it did not see.
      const done = await model.updateOne(
        { _id: 'keyset', version: doc.version, 'previous.kid': kid },
        { $set: { previous: null, version: doc.version + 1 } },
      );
      await load(true);
      return done.modifiedCount === 1 ? 'retired' : 'unknown';
    },
  };
}
