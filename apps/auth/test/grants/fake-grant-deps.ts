import type { IncomingMessage } from 'node:http';
import { exportJWK, generateKeyPair, type JWK, type KeyLike } from 'jose';
import type { AccountDoc } from '../../src/accounts/account-model';
import type { ApiKeyDoc } from '../../src/api-keys/api-key-model';
import type { ClientDoc } from '../../src/clients/client-model';
import type { ClientAuthMethod } from '@platform/contracts';
import { loadAuthConfig } from '../../src/config';
import type { Deps } from '../../src/deps';
import type { GrantContext, GrantDescriptor, GrantTokens } from '../../src/grants/grant-descriptor';
import type { SigningKeys } from '../../src/keys/signing-keys';
import type { Params } from '../../src/oauth/params';
import type { IdTokenInput } from '../../src/oidc/id-token';
import type { TokenSetInput } from '../../src/tokens/issue-tokens';
import type { RefreshTokenDoc } from '../../src/tokens/refresh-tokens';

// In-memory stand-ins for what the grants read and write, so their rules run without Redis or MongoDB.

export const ISSUER = 'https://platform.test';

/** The Redis commands the grants use, over a Map (TTLs are not modelled: no grant test waits for one). */
export class FakeRedis {
  readonly values = new Map<string, string>();
  readonly published: Array<[string, string]> = [];

  async get(key: string): Promise<string | null> {
    return this.values.get(key) ?? null;
  }

  async set(key: string, value: string, ...options: Array<string | number>): Promise<'OK' | null> {
    if (options.includes('NX') && this.values.has(key)) return null;
    this.values.set(key, value);
    return 'OK';
  }

  async getdel(key: string): Promise<string | null> {
    const value = this.values.get(key) ?? null;
    this.values.delete(key);
    return value;
  }

  async exists(key: string): Promise<number> {
    return this.values.has(key) ? 1 : 0;
  }

  async publish(channel: string, message: string): Promise<number> {
    this.published.push([channel, message]);
    return 0;
  }

  async hgetall(): Promise<Record<string, string>> {
    return {};
  }
}

type Filter = Record<string, unknown>;

function matches(doc: RefreshTokenDoc, filter: Filter): boolean {
  return Object.entries(filter).every(([field, wanted]) => {
    const value = (doc as unknown as Record<string, unknown>)[field] ?? null;
    if (wanted !== null && typeof wanted === 'object' && '$ne' in wanted)
      return value !== (wanted as { $ne: unknown }).$ne;
    return value === wanted;
  });
}

const lean = <T>(value: T) => ({ lean: async () => value });

/** The refresh token collection's queries the grants make (tokens/refresh-tokens.ts), over a Map. */
export class FakeRefreshTokens {
  readonly docs = new Map<string, RefreshTokenDoc>();

  findById(id: string) {
    return lean(this.docs.get(id) ?? null);
  }

  findOneAndUpdate(filter: Filter, update: { $set: Partial<RefreshTokenDoc> }) {
    const doc = [...this.docs.values()].find((d) => matches(d, filter));
    if (doc) Object.assign(doc, update.$set);
    return lean(doc ? { ...doc } : null);
  }

  async exists(filter: Filter): Promise<{ _id: string } | null> {
    const doc = [...this.docs.values()].find((d) => matches(d, filter));
    return doc ? { _id: doc._id } : null;
  }

  async updateMany(filter: Filter, update: { $set: Partial<RefreshTokenDoc> }): Promise<void> {
    for (const doc of this.docs.values()) if (matches(doc, filter)) Object.assign(doc, update.$set);
  }

  find(filter: Filter) {
    return lean([...this.docs.values()].filter((d) => matches(d, filter)));
  }
}

export function account(overrides: Partial<AccountDoc> = {}): AccountDoc {
  return {
    _id: 'acc-1',
    email: 'ada@example.org',
    name: 'Ada',
    roles: ['USER'],
    status: 'active',
    plan: 'pro',
    securityVersion: 0,
    ...overrides,
  } as AccountDoc;
}

export function client(overrides: Partial<ClientDoc> = {}): ClientDoc {
  return {
    _id: 'web-app',
    name: 'Web app',
    type: 'confidential',
    grantTypes: ['authorization_code', 'refresh_token', 'client_credentials'],
    redirectUris: ['https://app.example/cb'],
    scopes: ['openid', 'profile', 'speech:read', 'speech:write', 'offline_access'],
    resources: [ISSUER, `${ISSUER}/v1`],
    createdAt: new Date(0),
    ...overrides,
  };
}

/** ES256 signing keys held in memory, for the grants that verify our own access tokens. */
export async function memoryKeys(): Promise<SigningKeys & { publicJwk: JWK }> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const kid = 'test-key';
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: 'ES256' };
  return {
    publicJwk,
    current: async () => ({ kid, privateKey }),
    jwks: async () => ({ keys: [publicJwk] }),
    publicKey: async (wanted: string): Promise<KeyLike | undefined> => (wanted === kid ? publicKey : undefined),
    rotate: async () => kid,
    list: async () => [],
    retire: async () => 'unknown',
  };
}

/** The API key collection's queries a grant's revocation makes (api-keys/grant-key-revocation.ts), over a Map. */
export class FakeApiKeys {
  readonly docs = new Map<string, ApiKeyDoc>();

  private live(filter: Filter): ApiKeyDoc[] {
    return [...this.docs.values()].filter(
      (d) =>
        (d.revokedAt ?? null) === null &&
        Object.entries(filter).every(
          ([field, wanted]) =>
            field === 'revokedAt' ||
            (field.startsWith('grant.')
              ? (d.grant as unknown as Record<string, unknown> | null)?.[field.slice(6)] === wanted
              : false),
        ),
    );
  }

  find(filter: Filter) {
    return lean(this.live(filter).map((d) => ({ _id: d._id })));
  }

  async updateMany(filter: { _id: { $in: string[] } }, update: { $set: Partial<ApiKeyDoc> }) {
    for (const id of filter._id.$in) {
      const doc = this.docs.get(id);
      if (doc && !doc.revokedAt) Object.assign(doc, update.$set);
    }
  }
}

/** Records what a grant asks to issue and answers like issueTokenSet would, without signing. */
export class RecordingTokens implements GrantTokens {
  readonly issued: TokenSetInput[] = [];
  readonly idTokens: IdTokenInput[] = [];

  async issue(input: TokenSetInput) {
    this.issued.push(input);
    const n = this.issued.length;
    const familyId = input.withRefresh ? (input.familyId ?? `family-${n}`) : undefined;
    return {
      response: {
        access_token: `at-${n}`,
        token_type: input.jkt ? ('DPoP' as const) : ('Bearer' as const),
        expires_in: input.ttlSeconds ?? 3600,
        scope: input.scopes.join(' '),
        ...(input.withRefresh ? { refresh_token: `rt-${n}` } : {}),
      },
      jti: `jti-${n}`,
      exp: Math.floor(Date.now() / 1000) + 3600,
      ...(familyId ? { familyId } : {}),
    };
  }

  async idToken(input: IdTokenInput): Promise<string> {
    this.idTokens.push(input);
    return `id-token-${this.idTokens.length}`;
  }

  /** The one issuance the test expects. */
  get only(): TokenSetInput {
    expect(this.issued).toHaveLength(1);
    return this.issued[0]!;
  }
}

export interface FakeWorld {
  deps: Deps;
  redis: FakeRedis;
  refreshTokens: FakeRefreshTokens;
  apiKeys: FakeApiKeys;
  accounts: Map<string, AccountDoc>;
  tokens: RecordingTokens;
}

export function fakeWorld(env: Record<string, string> = {}, keys?: SigningKeys): FakeWorld {
  const redis = new FakeRedis();
  const refreshTokens = new FakeRefreshTokens();
  const apiKeys = new FakeApiKeys();
  const accounts = new Map<string, AccountDoc>([['acc-1', account()]]);
  const config = loadAuthConfig({
    // Never connected to: the grants reach Redis and MongoDB only through the fakes below.
    MONGO_URL: 'mongodb://unused.invalid/auth',
    REDIS_URL: 'redis://unused.invalid:6379',
    PUBLIC_URL: ISSUER,
    INTERNAL_SECRET: 'grant-tests-internal-secret-0123456789',
    ...env,
  });
  const deps = {
    config,
    redis,
    refreshTokens,
    apiKeys,
    accounts: { findById: (id: string) => lean(accounts.get(id) ?? null) },
    ...(keys ? { keys } : {}),
  } as unknown as Deps;
  return { deps, redis, refreshTokens, apiKeys, accounts, tokens: new RecordingTokens() };
}

export interface CallOptions {
  client?: ClientDoc;
  method?: ClientAuthMethod;
  jkt?: string;
}

/** Runs the grant's handler the way the token route does, after its client checks. */
export function callGrant(world: FakeWorld, grant: GrantDescriptor, params: Params, options: CallOptions = {}) {
  const ctx: GrantContext = {
    deps: world.deps,
    req: { headers: {} } as IncomingMessage,
    params,
    client: options.client ?? client(),
    method: options.method ?? 'client_secret_basic',
    ...(options.jkt ? { jkt: options.jkt } : {}),
    issues: grant.issues,
    tokens: world.tokens,
  };
  return grant.handler(ctx);
}
