import WebSocket from 'ws';
import { createClient, type Client } from 'graphql-ws';
// oauth4webapi is an ECMAScript module only: its types here, the module itself loaded by start().
import type * as OAuth from 'oauth4webapi' with { 'resolution-mode': 'import' };
import { eventually } from './eventually';

/**
 * A steady mix of the platform's three interfaces, driven against running gateways the way their users
 * drive them, with the bookkeeping needed to say afterwards that nothing was lost:
 *
 * - speech (docs/speech.md): `POST /v1/text-to-speech/:voice` (whole file), `…/stream` (chunked) with
 *   fetch, and the `stream-input` WebSocket with `ws`, authenticated with `xi-api-key`;
 * - content GraphQL (docs/content.md): `createPost` and `createComment` mutations over HTTP, and
 *   `subscribers` graphql-ws clients (each holding `onPostCreated` and `onCommentAdded(postId)` of one
 *   thread post the mix creates at start);
 * - OAuth 2.0 (RFC 6749 §4.4 client credentials, RFC 7662 introspection) with oauth4webapi.
 *
 * Knobs (`TrafficMixOptions`):
 * - `gateways`: the live replicas, asked before every request and every subscriber (re)connection; requests
 *   go round-robin over them, subscriber i connects to replica i mod n (so one whose replica goes away
 *   reconnects to another). A test takes a replica out of the list the way a load balancer does when its
 *   `/readyz` fails.
 * - `ratePerSecond` (default 5): operations started per second, over all interfaces, on a fixed clock; an
 *   operation due while `maxInFlight` (default 32) are running is counted in `summary().skipped`, not started,
 *   so an outage cannot pile up unbounded work.
 * - `weights`: relative share of each operation in the mix (default: `DEFAULT_WEIGHTS`); 0 leaves it out. The
 *   sequence is deterministic (smooth weighted round-robin).
 * - `subscribers` (default 2): graphql-ws clients, each subscribed to both fields.
 * - `requestTimeoutMs` (default 60 s): the client's own bound; a request still unanswered then is aborted and
 *   recorded with code `client-timeout` (a hang, for the caller to judge against the platform's documented bounds).
 * - `speechText`, `voiceId`: what each generation says, and with which voice.
 * - `contentTokens`: bearer tokens of accounts allowed to write content, used in turn (createComment is rate
 *   limited per account, so more accounts allow a higher comment rate).
 *
 * Ledgers (`ledgers()`): every write attempt with its unique marker and whether it committed (the mutation
 * answered with data); per subscriber, every event received by id with a count (duplicates show as > 1) and its
 * connection sessions (a session is live from its first event: only writes started after that are owed to it);
 * per generation, characters sent and audio bytes received and whether it completed. `deliveryReport` turns
 * them into what was owed and not delivered, or delivered twice.
 */

export type Operation =
  'tts' | 'tts-stream' | 'tts-websocket' | 'create-post' | 'create-comment' | 'token' | 'introspect';
export type Interface = 'speech' | 'graphql' | 'oauth';

export const OPERATIONS: readonly Operation[] = [
  'tts',
  'tts-stream',
  'tts-websocket',
  'create-post',
  'create-comment',
  'token',
  'introspect',
];

export const INTERFACE_OF: Record<Operation, Interface> = {
  tts: 'speech',
  'tts-stream': 'speech',
  'tts-websocket': 'speech',
  'create-post': 'graphql',
  'create-comment': 'graphql',
  token: 'oauth',
  introspect: 'oauth',
};

export const DEFAULT_WEIGHTS: Record<Operation, number> = {
  tts: 2,
  'tts-stream': 2,
  'tts-websocket': 1,
  'create-post': 3,
  'create-comment': 1,
  token: 2,
  introspect: 2,
};

/** How a request ended, in its interface's terms. */
export interface Outcome {
  ok: boolean;
  /** HTTP status, or the WebSocket close code. */
  status?: number;
  /**
   * The error's code: speech `detail.status`, GraphQL `extensions.code`, OAuth `error`, or for transport failures
   * the socket error (`ECONNREFUSED`, `ECONNRESET`, …), `client-timeout` (the mix gave up: `requestTimeoutMs`) or
   * `no-gateway` (`gateways()` named none).
   */
  code?: string;
  message?: string;
}

export interface RequestRecord {
  interface: Interface;
  operation: Operation;
  gateway: string;
  /** Epoch ms the request was sent. */
  start: number;
  latencyMs: number;
  outcome: Outcome;
}

export interface WriteAttempt {
  kind: 'post' | 'comment';
  /** Unique text in the post's title or the comment's content: events are matched to attempts by it. */
  marker: string;
  start: number;
  /** The mutation answered with data: the write is committed and its event is owed. */
  committed: boolean;
  /** Global id of the entity when committed. */
  id?: string;
}

export interface SubscriberSession {
  connectedAt: number;
  /** First event received in this session: the subscription is registered at the gateway by then. */
  liveAt?: number;
  endedAt?: number;
  gateway: string;
}

export interface SubscriberLedger {
  index: number;
  sessions: SubscriberSession[];
  /** Marker → times received. */
  received: Map<string, number>;
  errors: unknown[];
}

export interface GenerationLedger {
  operation: 'tts' | 'tts-stream' | 'tts-websocket';
  characters: number;
  audioBytes: number;
  /** The client got the whole audio (200 and the body read to its end; the WebSocket's final message and close 1000). */
  complete: boolean;
  historyItemId?: string;
  /** The gateway replica that served it: a generation on a replica killed just after its client had the last byte may be uncharged. */
  gateway: string;
  /** When the request was sent, and when the client had its last byte or gave up (epoch ms): what a mismatch is checked against. */
  startedAt: number;
  endedAt?: number;
}

export interface Ledgers {
  writes: WriteAttempt[];
  subscribers: SubscriberLedger[];
  generations: GenerationLedger[];
}

export interface OperationSummary {
  count: number;
  ok: number;
  /** Outcome code or status → count, for the failures. */
  failures: Record<string, number>;
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
}

export interface MixSummary {
  operations: Partial<Record<Operation, OperationSummary>>;
  skipped: number;
  inFlight: number;
}

export interface TrafficMixOptions {
  gateways: () => string[];
  /** The OAuth issuer (`PUBLIC_URL`); its metadata is read once, its endpoints are then reached through `gateways`. */
  issuer: string;
  oauthClient: { clientId: string; clientSecret: string };
  apiKey: string;
  contentTokens: string[];
  ratePerSecond?: number;
  weights?: Partial<Record<Operation, number>>;
  subscribers?: number;
  maxInFlight?: number;
  requestTimeoutMs?: number;
  voiceId?: string;
  speechText?: string;
  /** Prefix of write markers; unique per mix by default. */
  runId?: string;
}

export interface TrafficMix {
  /** Creates the thread post, connects the subscribers, and starts the clock. */
  start(): Promise<void>;
  /**
   * Stops the clock, waits for requests in flight, waits (at most `settleMs`, default 30 s) until every event owed
   * to the subscribers has arrived, and closes them. Sessions open until then stay open in the ledgers.
   */
  stop(settleMs?: number): Promise<void>;
  /** One request of every operation in the mix, at once; their records (also kept in the ledgers). */
  round(): Promise<RequestRecord[]>;
  records(): RequestRecord[];
  summary(): MixSummary;
  ledgers(): Ledgers;
  /** Every subscriber has a live session (an event received since its last (re)connection). */
  subscribersLive(): boolean;
}

/** Smooth weighted round-robin (as nginx balances upstreams): a deterministic sequence in the weights' proportions. */
export function weightedSequence(weights: Partial<Record<Operation, number>>): () => Operation {
  const entries = OPERATIONS.flatMap((op) =>
    (weights[op] ?? 0) > 0 ? [{ op, weight: weights[op]!, current: 0 }] : [],
  );
  if (entries.length === 0) throw new Error('the traffic mix needs at least one operation with a weight above 0');
  const total = entries.reduce((sum, e) => sum + e.weight, 0);
  return () => {
    for (const e of entries) e.current += e.weight;
    const best = entries.reduce((a, b) => (b.current > a.current ? b : a));
    best.current -= total;
    return best.op;
  };
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export function summarize(records: RequestRecord[], skipped = 0, inFlight = 0): MixSummary {
  const operations: Partial<Record<Operation, OperationSummary>> = {};
  for (const op of OPERATIONS) {
    const mine = records.filter((r) => r.operation === op);
    if (mine.length === 0) continue;
    const failures: Record<string, number> = {};
    for (const r of mine.filter((m) => !m.outcome.ok)) {
      const key = [r.outcome.status, r.outcome.code].filter((v) => v !== undefined).join(' ') || 'unknown';
      failures[key] = (failures[key] ?? 0) + 1;
    }
    const latencies = mine.map((r) => r.latencyMs).sort((a, b) => a - b);
    operations[op] = {
      count: mine.length,
      ok: mine.filter((r) => r.outcome.ok).length,
      failures,
      p50Ms: percentile(latencies, 50),
      p95Ms: percentile(latencies, 95),
      maxMs: latencies.at(-1) ?? 0,
    };
  }
  return { operations, skipped, inFlight };
}

export interface DeliveryReport {
  /** Subscriber index → markers of committed writes owed to it (started while it had a live session that is still open) and not received. */
  missing: Map<number, string[]>;
  /** Subscriber index → markers received more than once. */
  duplicated: Map<number, string[]>;
  /** Markers received that no write attempt of this mix made. */
  unknown: string[];
  /** Committed writes owed to at least one subscriber. */
  owed: number;
}

/**
 * What the subscribers were owed and got. A committed write is owed to a subscriber whose session was live
 * (had received an event) before the write started and is still open: the subscription was registered at its
 * gateway before the write, and nothing has ended it. Writes made while a subscriber was reconnecting are not
 * owed to it (a subscription delivers events from the moment it is registered; docs/gateway.md), nor are writes
 * whose delivery was in flight when its session ended. Whatever a subscriber did receive must be once only, and
 * only of writes this mix attempted (an attempt whose answer was lost, e.g. its service was killed after the
 * commit, may deliver an event although it did not report committed). `startedBefore` limits what is owed to
 * writes started before that moment, so a test can check while the mix goes on.
 */
export function deliveryReport(ledgers: Ledgers, options: { startedBefore?: number } = {}): DeliveryReport {
  const before = options.startedBefore ?? Number.POSITIVE_INFINITY;
  const attempts = new Map(ledgers.writes.map((w) => [w.marker, w]));
  const missing = new Map<number, string[]>();
  const duplicated = new Map<number, string[]>();
  const unknown = new Set<string>();
  const owedAny = new Set<string>();
  for (const sub of ledgers.subscribers) {
    const open = sub.sessions.find((s) => s.endedAt === undefined && s.liveAt !== undefined);
    const owed = open ? ledgers.writes.filter((w) => w.committed && w.start >= open.liveAt! && w.start < before) : [];
    for (const w of owed) owedAny.add(w.marker);
    const lost = owed.filter((w) => !sub.received.has(w.marker)).map((w) => w.marker);
    if (lost.length > 0) missing.set(sub.index, lost);
    const twice = [...sub.received].filter(([, n]) => n > 1).map(([m]) => m);
    if (twice.length > 0) duplicated.set(sub.index, twice);
    for (const marker of sub.received.keys()) if (!attempts.has(marker)) unknown.add(marker);
  }
  return { missing, duplicated, unknown: [...unknown], owed: owedAny.size };
}

/** Speech `{detail:{status}}`, GraphQL `errors[0].extensions.code`, OAuth and content REST `error`. */
function codeOfBody(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const b = body as { detail?: { status?: unknown }; errors?: { extensions?: { code?: unknown } }[]; error?: unknown };
  if (typeof b.detail?.status === 'string') return b.detail.status;
  const gql = Array.isArray(b.errors) ? b.errors[0]?.extensions?.code : undefined;
  if (typeof gql === 'string') return gql;
  if (typeof b.error === 'string') return b.error;
  if (typeof b.error === 'object' && b.error !== null) return String((b.error as { code?: unknown }).code);
  return undefined;
}

function transportFailure(err: unknown): Outcome {
  const e = err as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError' || e.name === 'AbortError')
    return { ok: false, code: 'client-timeout', message: e.message };
  return { ok: false, code: e.cause?.code ?? e.code ?? e.name ?? 'error', message: e.cause?.message ?? e.message };
}

async function readBody(res: Response): Promise<unknown> {
  const text = await res.text();
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

export function createTrafficMix(options: TrafficMixOptions): TrafficMix {
  const rate = options.ratePerSecond ?? 5;
  const maxInFlight = options.maxInFlight ?? 32;
  const timeoutMs = options.requestTimeoutMs ?? 60_000;
  const voiceId = options.voiceId ?? '21m00Tcm4TlvDq8ikWAM';
  const text = options.speechText ?? 'The mix keeps talking while the platform is restarted.';
  const runId = options.runId ?? `mix${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const weights = { ...DEFAULT_WEIGHTS, ...options.weights };
  const next = weightedSequence(weights);

  const records: RequestRecord[] = [];
  const ledgers: Ledgers = { writes: [], subscribers: [], generations: [] };
  const inFlight = new Set<Promise<unknown>>();
  const clients: Client[] = [];
  let skipped = 0;
  let counter = 0;
  let gatewayTurn = 0;
  let tokenTurn = 0;
  let timer: NodeJS.Timeout | undefined;
  let stopping = false;
  let threadPostId: string | undefined;
  let lastAccessToken: string | undefined;
  let metadata: OAuth.AuthorizationServer | undefined;
  let oauth: typeof OAuth | undefined;
  const oauthClient: OAuth.Client = { client_id: options.oauthClient.clientId };

  /** The next live gateway in turn; undefined while none is live. */
  const pickGateway = (): string | undefined => {
    const live = options.gateways();
    gatewayTurn += 1;
    return live[gatewayTurn % live.length];
  };
  const contentToken = (): string => options.contentTokens[tokenTurn++ % options.contentTokens.length]!;
  const marker = (): string => `${runId}-${++counter}`;

  async function timed(
    operation: Operation,
    send: (gateway: string, signal: AbortSignal) => Promise<Outcome>,
  ): Promise<RequestRecord> {
    const gateway = pickGateway();
    const start = Date.now();
    let outcome: Outcome;
    try {
      outcome =
        gateway === undefined ? { ok: false, code: 'no-gateway' } : await send(gateway, AbortSignal.timeout(timeoutMs));
    } catch (err) {
      outcome = transportFailure(err);
    }
    const record: RequestRecord = {
      interface: INTERFACE_OF[operation],
      operation,
      gateway: gateway ?? '',
      start,
      latencyMs: Date.now() - start,
      outcome,
    };
    records.push(record);
    return record;
  }

  async function ttsOverHttp(operation: 'tts' | 'tts-stream', gateway: string, signal: AbortSignal): Promise<Outcome> {
    const generation: GenerationLedger = {
      operation,
      gateway,
      characters: [...text].length,
      audioBytes: 0,
      complete: false,
      startedAt: Date.now(),
    };
    ledgers.generations.push(generation);
    try {
      return await readGeneration(operation, gateway, signal, generation);
    } finally {
      generation.endedAt = Date.now();
    }
  }

  async function readGeneration(
    operation: 'tts' | 'tts-stream',
    gateway: string,
    signal: AbortSignal,
    generation: GenerationLedger,
  ): Promise<Outcome> {
    const res = await fetch(
      `${gateway}/v1/text-to-speech/${voiceId}${operation === 'tts-stream' ? '/stream' : ''}?output_format=mp3_22050_32`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'xi-api-key': options.apiKey },
        body: JSON.stringify({ text }),
        signal,
      },
    );
    generation.historyItemId = res.headers.get('history-item-id') ?? undefined;
    if (res.status !== 200) {
      const body = await readBody(res);
      return { ok: false, status: res.status, code: codeOfBody(body), message: JSON.stringify(body).slice(0, 200) };
    }
    // Read to the end: a body cut short rejects here (a transport failure), which is not a complete generation.
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) generation.audioBytes += chunk.length;
    generation.complete = generation.audioBytes > 0;
    return generation.complete ? { ok: true, status: 200 } : { ok: false, status: 200, code: 'empty-audio' };
  }

  function ttsOverWebSocket(gateway: string, signal: AbortSignal): Promise<Outcome> {
    const generation: GenerationLedger = {
      operation: 'tts-websocket',
      gateway,
      characters: [...text].length,
      audioBytes: 0,
      complete: false,
      startedAt: Date.now(),
    };
    ledgers.generations.push(generation);
    return new Promise<Outcome>((resolve) => {
      const url = `${gateway.replace(/^http/, 'ws')}/v1/text-to-speech/${voiceId}/stream-input?output_format=mp3_22050_32`;
      const ws = new WebSocket(url, { headers: { 'xi-api-key': options.apiKey } });
      let final = false;
      let error: string | undefined;
      let transport: Outcome | undefined;
      const onAbort = () => {
        transport = { ok: false, code: 'client-timeout' };
        ws.terminate();
      };
      signal.addEventListener('abort', onAbort, { once: true });
      ws.on('open', () => {
        ws.send(JSON.stringify({ text: ' ' }));
        ws.send(JSON.stringify({ text: `${text} `, flush: true }));
        ws.send(JSON.stringify({ text: '' }));
      });
      ws.on('message', (data: Buffer, isBinary: boolean) => {
        if (isBinary) {
          generation.audioBytes += data.length;
          return;
        }
        const message = JSON.parse(data.toString()) as {
          isFinal?: boolean | null;
          audio?: string;
          detail?: { status?: string; message?: string };
        };
        if (message.audio) generation.audioBytes += Buffer.from(message.audio, 'base64').length;
        if (message.isFinal === true) final = true;
        if (message.detail) error = message.detail.status ?? 'error';
      });
      ws.on('unexpected-response', (_req, res) => {
        transport = { ok: false, status: res.statusCode, code: 'upgrade-refused' };
        res.resume();
        ws.terminate();
      });
      ws.on('error', (err) => {
        transport ??= transportFailure(err);
      });
      ws.on('close', (code) => {
        generation.endedAt = Date.now();
        signal.removeEventListener('abort', onAbort);
        generation.complete = final && code === 1000 && generation.audioBytes > 0;
        if (transport) resolve(transport);
        else
          resolve(
            generation.complete ? { ok: true, status: code } : { ok: false, status: code, code: error ?? 'incomplete' },
          );
      });
    });
  }

  async function graphql(
    gateway: string,
    signal: AbortSignal,
    query: string,
    variables: Record<string, unknown>,
  ): Promise<{ outcome: Outcome; data?: Record<string, { id?: string; post?: { id?: string } } | undefined> }> {
    const res = await fetch(`${gateway}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${contentToken()}` },
      body: JSON.stringify({ query, variables }),
      signal,
    });
    const body = (await readBody(res)) as {
      data?: Record<string, { id?: string; post?: { id?: string } } | undefined> | null;
      errors?: unknown[];
    };
    if (res.status === 200 && body.data && !body.errors) return { outcome: { ok: true, status: 200 }, data: body.data };
    return {
      outcome: {
        ok: false,
        status: res.status,
        code: codeOfBody(body) ?? 'no-data',
        message: JSON.stringify(body).slice(0, 200),
      },
    };
  }

  async function write(kind: 'post' | 'comment', gateway: string, signal: AbortSignal): Promise<Outcome> {
    const attempt: WriteAttempt = { kind, marker: marker(), start: Date.now(), committed: false };
    ledgers.writes.push(attempt);
    const { outcome, data } =
      kind === 'post'
        ? await graphql(
            gateway,
            signal,
            'mutation($i: CreatePostInput!) { createPost(input: $i) { success post { id } } }',
            {
              i: { title: attempt.marker, content: `${attempt.marker} body`, status: 'PUBLISHED' },
            },
          )
        : await graphql(gateway, signal, 'mutation($i: CreateCommentInput!) { createComment(input: $i) { id } }', {
            i: { content: attempt.marker, postId: threadPostId },
          });
    const id =
      kind === 'post'
        ? (data?.createPost as { post?: { id?: string } } | undefined)?.post?.id
        : data?.createComment?.id;
    if (outcome.ok && id) {
      attempt.committed = true;
      attempt.id = id;
      return outcome;
    }
    return outcome.ok ? { ok: false, status: outcome.status, code: 'no-data' } : outcome;
  }

  async function discovered(
    oauth: typeof OAuth,
    gateway: string,
    signal: AbortSignal,
  ): Promise<OAuth.AuthorizationServer> {
    if (!metadata) {
      const issuer = new URL(options.issuer);
      const res = await oauth.discoveryRequest(issuer, { [oauth.allowInsecureRequests]: true, signal });
      metadata = await oauth.processDiscoveryResponse(issuer, res);
    }
    // The issuer's endpoints, reached through the chosen replica (what a load balancer in front of PUBLIC_URL does).
    const through = (url: string | undefined) => (url ? url.replace(options.issuer, gateway) : undefined);
    return {
      ...metadata,
      token_endpoint: through(metadata.token_endpoint),
      introspection_endpoint: through(metadata.introspection_endpoint),
    };
  }

  async function oauthRequest(
    operation: 'token' | 'introspect',
    gateway: string,
    signal: AbortSignal,
  ): Promise<Outcome> {
    oauth ??= await import('oauth4webapi');
    const as = await discovered(oauth, gateway, signal);
    const clientAuth = oauth.ClientSecretBasic(options.oauthClient.clientSecret);
    const opts = { [oauth.allowInsecureRequests]: true, signal };
    try {
      if (operation === 'token' || !lastAccessToken) {
        const res = await oauth.clientCredentialsGrantRequest(as, oauthClient, clientAuth, new URLSearchParams(), opts);
        const tokens = await oauth.processClientCredentialsResponse(as, oauthClient, res);
        lastAccessToken = tokens.access_token;
        if (operation === 'token') return { ok: true, status: 200 };
      }
      const res = await oauth.introspectionRequest(as, oauthClient, clientAuth, lastAccessToken!, opts);
      const answer = await oauth.processIntrospectionResponse(as, oauthClient, res);
      return answer.active ? { ok: true, status: 200 } : { ok: false, status: 200, code: 'inactive' };
    } catch (err) {
      if (err instanceof oauth.ResponseBodyError)
        return { ok: false, status: err.status, code: err.error, message: err.error_description };
      // oauth4webapi parses error bodies of 4xx answers only; a 5xx (503 temporarily_unavailable) comes as the response itself.
      const answer = (err as { cause?: unknown }).cause;
      if (err instanceof oauth.OperationProcessingError && answer instanceof Response) {
        const body = await readBody(answer);
        return {
          ok: false,
          status: answer.status,
          code: codeOfBody(body),
          message: JSON.stringify(body).slice(0, 200),
        };
      }
      throw err;
    }
  }

  function run(operation: Operation): Promise<RequestRecord> {
    return timed(operation, (gateway, signal) => {
      switch (operation) {
        case 'tts':
        case 'tts-stream':
          return ttsOverHttp(operation, gateway, signal);
        case 'tts-websocket':
          return ttsOverWebSocket(gateway, signal);
        case 'create-post':
          return write('post', gateway, signal);
        case 'create-comment':
          return write('comment', gateway, signal);
        case 'token':
        case 'introspect':
          return oauthRequest(operation, gateway, signal);
      }
    });
  }

  function track<T>(work: Promise<T>): Promise<T> {
    inFlight.add(work);
    void work.finally(() => inFlight.delete(work));
    return work;
  }

  function subscribe(index: number): void {
    const ledger: SubscriberLedger = { index, sessions: [], received: new Map(), errors: [] };
    ledgers.subscribers.push(ledger);
    let gateway = '';
    const current = () => ledger.sessions.at(-1);
    const client = createClient({
      // graphql-ws asks for the URL on every (re)connection: subscriber i goes to live replica i mod n, so a
      // subscriber whose replica went away reconnects to another one.
      url: () => {
        const live = options.gateways();
        gateway = live[index % live.length]!;
        return `${gateway.replace(/^http/, 'ws')}/graphql`;
      },
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${options.contentTokens[index % options.contentTokens.length]}` },
      lazy: false,
      retryAttempts: Number.MAX_SAFE_INTEGER,
      shouldRetry: () => true,
      retryWait: async (retries) => new Promise((r) => setTimeout(r, Math.min(250 * 2 ** retries, 2000))),
    });
    client.on('connected', () => ledger.sessions.push({ connectedAt: Date.now(), gateway }));
    client.on('closed', () => {
      // Closing at stop() is not a lost session: what was owed until then stays owed.
      if (stopping) return;
      const session = current();
      if (session && session.endedAt === undefined) session.endedAt = Date.now();
    });
    const receive = (value: string | undefined) => {
      if (!value) return;
      const session = current();
      if (session && session.liveAt === undefined) session.liveAt = Date.now();
      ledger.received.set(value, (ledger.received.get(value) ?? 0) + 1);
    };
    const sink = <T>(pick: (data: T) => string | undefined) => ({
      next: (value: { data?: T | null; errors?: unknown }) => {
        if (value.errors) ledger.errors.push(value.errors);
        if (value.data) receive(pick(value.data));
      },
      error: (err: unknown) => ledger.errors.push(err),
      complete: () => undefined,
    });
    client.subscribe<{ onPostCreated: { title: string } }>(
      { query: 'subscription { onPostCreated { id title } }' },
      sink((d) => d.onPostCreated.title),
    );
    client.subscribe<{ onCommentAdded: { content: string } }>(
      { query: 'subscription($p: ID!) { onCommentAdded(postId: $p) { id content } }', variables: { p: threadPostId } },
      sink((d) => d.onCommentAdded.content),
    );
    clients.push(client);
  }

  function tick(): void {
    if (inFlight.size >= maxInFlight) skipped += 1;
    else void track(run(next()));
  }

  return {
    async start() {
      const gateway = pickGateway();
      if (gateway === undefined) throw new Error('the traffic mix has no gateway to send to');
      // A write like the others in the ledgers (subscribers may see its event), made before any subscriber is live.
      const thread: WriteAttempt = { kind: 'post', marker: `${runId} thread`, start: Date.now(), committed: false };
      ledgers.writes.push(thread);
      const res = await fetch(`${gateway}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${options.contentTokens[0]}` },
        body: JSON.stringify({
          query: 'mutation($i: CreatePostInput!) { createPost(input: $i) { post { id } } }',
          variables: { i: { title: thread.marker, content: 'comments of the mix', status: 'PUBLISHED' } },
        }),
      });
      const body = (await readBody(res)) as { data?: { createPost?: { post?: { id?: string } } } };
      threadPostId = body.data?.createPost?.post?.id;
      if (!threadPostId)
        throw new Error(`the traffic mix could not create its thread post: ${res.status} ${JSON.stringify(body)}`);
      thread.committed = true;
      thread.id = threadPostId;
      for (let i = 0; i < (options.subscribers ?? 2); i += 1) subscribe(i);
      const started = Date.now();
      let due = 0;
      // A fixed clock: operation n is due at started + n / rate, whatever the previous ones took.
      const schedule = () => {
        due += 1;
        tick();
        timer = setTimeout(schedule, Math.max(0, started + (due * 1000) / rate - Date.now()));
      };
      timer = setTimeout(schedule, 1000 / rate);
    },
    async stop(settleMs = 30_000) {
      if (timer) clearTimeout(timer);
      timer = undefined;
      await Promise.allSettled([...inFlight]);
      // A bound, not a wait: it ends as soon as nothing owed is missing; what is still missing then is reported.
      await eventually(() => deliveryReport(ledgers).missing.size === 0, settleMs, 100).catch(() => undefined);
      stopping = true;
      await Promise.allSettled(clients.map((c) => c.dispose()));
    },
    round() {
      return track(Promise.all(OPERATIONS.filter((op) => weights[op] > 0).map((op) => run(op))));
    },
    records: () => [...records],
    summary: () => summarize(records, skipped, inFlight.size),
    ledgers: () => ledgers,
    subscribersLive: () =>
      ledgers.subscribers.length > 0 &&
      ledgers.subscribers.every(
        (s) => s.sessions.at(-1)?.endedAt === undefined && s.sessions.at(-1)?.liveAt !== undefined,
      ),
  };
}
