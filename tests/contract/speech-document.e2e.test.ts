import { speechOpenApi, type ApiDocument } from '@platform/api-docs';
import { eventually } from '@platform/testing';
import { createApiKey, registerAccount, startPlatform, type Account, type Platform } from '../gateway/platform';
import { openApiValidator, type OpenApiValidator } from '../support/openapi-validator';
import { espeakWav, REFERENCE_TEXT } from '../voices/audio';
import { speechPathTemplate } from './speech-responses';

/**
 * The speech API's OpenAPI document, as the gateway serves it, against the real platform (auth, content, a gateway and a synthesis worker
 * as processes): every operation the document describes is called at least once with a success and once with an
 * error, and every answer (status, media type, JSON body; each line of newline-delimited JSON) must be what the
 * document says. At the end, an operation that was not exercised both ways fails the test, so an operation added
 * to the document without a call here is noticed.
 */
jest.setTimeout(180_000);

const RACHEL = '21m00Tcm4TlvDq8ikWAM';
const exercised = new Map<string, Set<string>>();

let platform: Platform;
let gateway: string;
let key: string;
let owner: Account;
/** Built from the document the gateway serves at /openapi/speech.json: what integrators read. */
let validator: OpenApiValidator;

type Answer = { status: number; headers: Headers; body: unknown; bytes: Buffer };

async function call(
  path: string,
  init: { method?: string; headers?: Record<string, string>; json?: unknown; form?: FormData } = {},
): Promise<Answer> {
  const method = init.method ?? (init.json !== undefined || init.form ? 'POST' : 'GET');
  const res = await fetch(`${gateway}${path}`, {
    method,
    headers: { ...(init.json !== undefined ? { 'content-type': 'application/json' } : {}), ...init.headers },
    ...(init.json !== undefined ? { body: JSON.stringify(init.json) } : {}),
    ...(init.form ? { body: init.form } : {}),
  });
  const bytes = Buffer.from(await res.arrayBuffer());
  const contentType = res.headers.get('content-type');
  const type = contentType?.split(';')[0]!.trim() ?? '';
  const pathname = new URL(`${gateway}${path}`).pathname;
  const request = { method, path: pathname };
  let body: unknown = bytes.length === 0 ? undefined : '';
  if (type === 'application/json') {
    body = JSON.parse(bytes.toString('utf8')) as unknown;
    validator.assertConforms(request, { status: res.status, contentType, body });
  } else if (type === 'application/x-ndjson') {
    const lines = bytes
      .toString('utf8')
      .split('\n')
      .filter((line) => line !== '');
    expect(lines.length).toBeGreaterThan(0);
    body = lines.map((line) => JSON.parse(line) as unknown);
    for (const line of body as unknown[])
      validator.assertConforms(request, { status: res.status, contentType, body: line });
  } else if (type === 'text/event-stream') {
    // Server-Sent Events (OpenAI's `stream_format: "sse"`): the schema is each event's data.
    body = bytes
      .toString('utf8')
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice('data: '.length)) as unknown);
    expect((body as unknown[]).length).toBeGreaterThan(0);
    for (const event of body as unknown[])
      validator.assertConforms(request, { status: res.status, contentType, body: event });
  } else {
    validator.assertConforms(request, { status: res.status, contentType, body: bytes.length === 0 ? undefined : '' });
  }
  const operation = `${method} ${speechPathTemplate(pathname) ?? pathname}`;
  const outcomes = exercised.get(operation) ?? new Set<string>();
  outcomes.add(res.status < 300 ? 'success' : 'error');
  exercised.set(operation, outcomes);
  return { status: res.status, headers: res.headers, body, bytes };
}

const withKey = (extra: Record<string, string> = {}) => ({ 'xi-api-key': key, ...extra });
const withToken = () => ({ authorization: `Bearer ${owner.token}` });
const detailStatus = (answer: Answer) => (answer.body as { detail: { status: string } }).detail.status;

beforeAll(async () => {
  const roomy = JSON.stringify({ free: { rps: 100, concurrency: 10 } });
  platform = await startPlatform({ speechWorkers: {}, gatewayEnv: { PLAN_LIMITS_JSON: roomy } });
  gateway = platform.publicUrl;
  owner = await registerAccount(gateway, 'Contract Tester');
  key = (await createApiKey(platform.auth.url, owner.id)).key;
  const served = await fetch(`${gateway}/openapi/speech.json`);
  expect(served.status).toBe(200);
  const document = (await served.json()) as ApiDocument;
  // The served document is the library's, naming this gateway as its server.
  expect({ ...document, servers: null }).toEqual({ ...speechOpenApi(), servers: null });
  validator = openApiValidator(document);
});

afterAll(async () => {
  await platform?.stop();
});

describe('the speech API answers as its OpenAPI document says', () => {
  let historyId: string;

  it('text to speech: whole file, streamed, with timestamps (whole and streamed)', async () => {
    const whole = await call(`/v1/text-to-speech/${RACHEL}`, { headers: withKey(), json: { text: 'Hello there.' } });
    expect(whole.status).toBe(200);
    expect(whole.headers.get('content-type')).toBe('audio/mpeg');
    historyId = whole.headers.get('history-item-id')!;
    expect(historyId).toBeTruthy();
    expect((await call('/v1/text-to-speech/nobody', { headers: withKey(), json: { text: 'Hello.' } })).status).toBe(
      404,
    );

    const streamed = await call(`/v1/text-to-speech/${RACHEL}/stream?output_format=pcm_16000`, {
      headers: withKey(),
      json: { text: 'One. Two.' },
    });
    expect([streamed.status, streamed.headers.get('content-type')]).toEqual([200, 'audio/pcm;rate=16000']);
    expect(
      detailStatus(await call(`/v1/text-to-speech/${RACHEL}/stream`, { headers: withKey(), json: { text: '   ' } })),
    ).toBe('bad_request');

    const timed = await call(`/v1/text-to-speech/${RACHEL}/with-timestamps`, {
      headers: withKey(),
      json: { text: 'Hi, you.' },
    });
    expect(timed.status).toBe(200);
    expect((timed.body as { alignment: { characters: string[] } }).alignment.characters.join('')).toBe('Hi, you.');
    // A language whose eSpeak NG voice is named by its code is timed too (it was a 502 once).
    expect(
      (
        await call(`/v1/text-to-speech/${RACHEL}/with-timestamps`, {
          headers: withKey(),
          json: { text: 'Hello 0.', language_code: 'en-GB' },
        })
      ).status,
    ).toBe(200);
    expect(
      detailStatus(
        await call(`/v1/text-to-speech/${RACHEL}/with-timestamps`, {
          headers: withKey(),
          json: { text: 'Hi.', model_id: 'nope' },
        }),
      ),
    ).toBe('model_not_found');

    const lines = await call(`/v1/text-to-speech/${RACHEL}/stream/with-timestamps`, {
      headers: withKey(),
      json: { text: 'First. Second.' },
    });
    expect(lines.status).toBe(200);
    expect((lines.body as unknown[]).length).toBeGreaterThan(0);
    expect(
      (
        await call(`/v1/text-to-speech/${RACHEL}/stream/with-timestamps`, {
          headers: withKey(),
          json: { text: 'Hi.', output_format: 'mp3_1_1' },
        })
      ).status,
    ).toBe(400);

    // A key made for reading only may not synthesise: 403 `unauthorized`.
    const reader = await call('/v1/api-keys', {
      headers: withToken(),
      json: { name: 'reader', scopes: ['speech:read'] },
    });
    const readOnly = (reader.body as { key: string }).key;
    const refused = await call(`/v1/text-to-speech/${RACHEL}`, {
      headers: { 'xi-api-key': readOnly },
      json: { text: 'Hello.' },
    });
    expect([refused.status, detailStatus(refused)]).toEqual([403, 'unauthorized']);
  });

  it("OpenAI's speech API: audio and SSE, and its errors in OpenAI's shape", async () => {
    const speech = (json: unknown, headers: Record<string, string> = withKey()) =>
      call('/v1/audio/speech', { headers, json });
    const pcm = await speech({ model: 'tts-1', voice: 'alloy', input: 'Hello there.', response_format: 'pcm' });
    expect([pcm.status, pcm.headers.get('content-type')]).toEqual([200, 'audio/pcm;rate=24000']);
    // OpenAI's SDKs send `Authorization: Bearer`: an OAuth access token works there as an API key does.
    const withAccessToken = await speech(
      { model: 'tts-1', voice: 'alloy', input: 'Hi.', response_format: 'wav' },
      withToken(),
    );
    expect([withAccessToken.status, withAccessToken.headers.get('content-type')]).toEqual([200, 'audio/wav']);
    const sse = await speech({ model: 'tts-1', voice: 'alloy', input: 'Hello there.', stream_format: 'sse' });
    expect([sse.status, (sse.body as { type: string }[]).at(-1)!.type]).toEqual([200, 'speech.audio.done']);
    const errorOf = (answer: Answer) => [answer.status, (answer.body as { error: { code: string } }).error.code];
    expect(errorOf(await speech({ model: 'tts-1', voice: 'nobody', input: 'Hi.' }))).toEqual([404, 'voice_not_found']);
    expect(errorOf(await speech({ model: 'tts-1', voice: 'alloy', input: 'Hi.', response_format: 'flac' }))).toEqual([
      400,
      'unsupported_response_format',
    ]);
    // Refused by the gateway's authentication, before the route: OpenAI's shape too.
    expect(errorOf(await speech({ model: 'tts-1', voice: 'alloy', input: 'Hi.' }, {}))).toEqual([
      401,
      'missing_api_key',
    ]);
  });

  it('previews and models', async () => {
    const preview = await call(`/v1/voice-previews/${RACHEL}.mp3`, { headers: withKey() });
    expect([preview.status, preview.headers.get('content-type')]).toEqual([200, 'audio/mpeg']);
    expect((await call('/v1/voice-previews/nobody.mp3', { headers: withKey() })).status).toBe(404);

    expect((await call('/v1/models', { headers: withKey() })).body).toEqual({ models: expect.any(Array) });
    expect((await call('/v1/models?shape=hosted', { headers: withKey() })).body).toEqual(expect.any(Array));
    expect((await call('/v1/models?shape=other', { headers: withKey() })).status).toBe(400);
  });

  it('voices: list, search, defaults, clone, get, edit, settings, samples, delete', async () => {
    expect((await call('/v1/voices', { headers: withKey() })).status).toBe(200);
    const anonymous = await call('/v1/voices');
    expect([anonymous.status, detailStatus(anonymous)]).toEqual([401, 'unauthorized']);

    expect((await call('/v2/voices?page_size=2', { headers: withKey() })).status).toBe(200);
    expect((await call('/v2/voices?page_size=0', { headers: withKey() })).status).toBe(400);

    expect((await call('/v1/voices/settings/default', { headers: withKey() })).status).toBe(200);
    const badKey = await call('/v1/voices/settings/default', { headers: { 'xi-api-key': `sk_${'0'.repeat(64)}` } });
    expect([badKey.status, detailStatus(badKey)]).toEqual([401, 'invalid_api_key']);

    const form = new FormData();
    form.append('name', 'Contract voice');
    form.append(
      'files',
      new Blob([new Uint8Array(espeakWav(REFERENCE_TEXT, 'en+m3', 30))], { type: 'audio/wav' }),
      'me.wav',
    );
    const added = await call('/v1/voices/add', { headers: withKey(), form });
    expect(added.status).toBe(200);
    const voiceId = (added.body as { voice_id: string }).voice_id;
    const noFiles = new FormData();
    noFiles.append('name', 'No files');
    expect((await call('/v1/voices/add', { headers: withKey(), form: noFiles })).status).toBe(400);

    const voice = await call(`/v1/voices/${voiceId}`, { headers: withKey() });
    expect(voice.status).toBe(200);
    const sampleId = (voice.body as { samples: { sample_id: string }[] }).samples[0]!.sample_id;
    expect((await call('/v1/voices/nobody', { headers: withKey() })).status).toBe(404);

    const rename = new FormData();
    rename.append('name', 'Renamed');
    expect((await call(`/v1/voices/${voiceId}/edit`, { headers: withKey(), form: rename })).status).toBe(200);
    expect((await call(`/v1/voices/${RACHEL}/edit`, { headers: withKey(), form: rename })).status).toBe(400);

    expect((await call(`/v1/voices/${voiceId}/settings`, { headers: withKey() })).status).toBe(200);
    expect((await call('/v1/voices/nobody/settings', { headers: withKey() })).status).toBe(404);
    expect(
      (await call(`/v1/voices/${voiceId}/settings/edit`, { headers: withKey(), json: { stability: 0.3 } })).status,
    ).toBe(200);
    expect(
      (await call(`/v1/voices/${voiceId}/settings/edit`, { headers: withKey(), json: { stability: 2 } })).status,
    ).toBe(400);

    const sample = await call(`/v1/voices/${voiceId}/samples/${sampleId}/audio`, { headers: withKey() });
    expect([sample.status, sample.headers.get('content-type')]).toEqual([200, 'audio/wav']);
    expect((await call(`/v1/voices/${voiceId}/samples/nothing/audio`, { headers: withKey() })).status).toBe(404);

    expect((await call(`/v1/voices/${voiceId}`, { method: 'DELETE', headers: withKey() })).status).toBe(200);
    expect((await call(`/v1/voices/${voiceId}`, { method: 'DELETE', headers: withKey() })).status).toBe(404);
  });

  it('history: list, get, audio, download, delete', async () => {
    // The worker records the item when its job ends.
    await eventually(
      async () => (await call(`/v1/history/${historyId}`, { headers: withKey() })).status === 200,
      30_000,
    );
    expect((await call('/v1/history?pageSize=2', { headers: withKey() })).status).toBe(200);
    expect((await call('/v1/history?pageSize=0', { headers: withKey() })).status).toBe(400);
    expect((await call('/v1/history/unknown-item', { headers: withKey() })).status).toBe(404);

    const audio = await call(`/v1/history/${historyId}/audio`, { headers: withKey() });
    expect([audio.status, audio.headers.get('content-type')]).toEqual([200, 'audio/mpeg']);
    expect((await call('/v1/history/unknown-item/audio', { headers: withKey() })).status).toBe(404);

    expect(
      (await call('/v1/history/download', { headers: withKey(), json: { history_item_ids: [historyId] } })).status,
    ).toBe(200);
    expect((await call('/v1/history/download', { headers: withKey(), json: {} })).status).toBe(400);

    expect((await call(`/v1/history/${historyId}`, { method: 'DELETE', headers: withKey() })).status).toBe(200);
    expect((await call(`/v1/history/${historyId}`, { method: 'DELETE', headers: withKey() })).status).toBe(404);
  });

  it('user and subscription', async () => {
    expect((await call('/v1/user', { headers: withKey() })).status).toBe(200);
    expect((await call('/v1/user')).status).toBe(401);
    expect((await call('/v1/user/subscription', { headers: withKey() })).status).toBe(200);
    expect((await call('/v1/user/subscription')).status).toBe(401);
  });

  it('API keys: create, list, revoke', async () => {
    const created = await call('/v1/api-keys', { headers: withToken(), json: { name: 'laptop' } });
    expect(created.status).toBe(201);
    const keyId = (created.body as { key_id: string }).key_id;
    const byKey = await call('/v1/api-keys', { headers: withKey(), json: { name: 'from a key' } });
    expect([byKey.status, detailStatus(byKey)]).toEqual([403, 'unauthorized']);

    expect((await call('/v1/api-keys?page_size=5', { headers: withToken() })).status).toBe(200);
    expect((await call('/v1/api-keys?page_size=0', { headers: withToken() })).status).toBe(400);

    expect((await call(`/v1/api-keys/${keyId}`, { method: 'DELETE', headers: withToken() })).status).toBe(204);
    expect((await call(`/v1/api-keys/${keyId}`, { method: 'DELETE', headers: withToken() })).status).toBe(404);
  });

  it('pronunciation dictionaries: create from rules and from a lexicon, list, get, rename, download, change rules', async () => {
    const base = '/v1/pronunciation-dictionaries';
    const rule = { type: 'alias', string_to_replace: 'ASAP', alias: 'as soon as possible' };
    const created = await call(`${base}/add-from-rules`, {
      headers: withKey(),
      json: { name: 'Contract words', rules: [rule] },
    });
    expect(created.status).toBe(200);
    const { id, version_id: versionId } = created.body as { id: string; version_id: string };
    expect((await call(`${base}/add-from-rules`, { headers: withKey(), json: { name: 'No rules' } })).status).toBe(400);

    const lexicon =
      '<?xml version="1.0" encoding="UTF-8"?>\n<lexicon version="1.0" xmlns="http://www.w3.org/2005/01/pronunciation-lexicon" alphabet="ipa" xml:lang="en-US"><lexeme><grapheme>tomato</grapheme><phoneme>təˈmɑːtoʊ</phoneme></lexeme></lexicon>';
    const file = new FormData();
    file.append('name', 'Contract lexicon');
    file.append('file', new Blob([lexicon], { type: 'application/pls+xml' }), 'words.pls');
    expect((await call(`${base}/add-from-file`, { headers: withKey(), form: file })).status).toBe(200);
    const noFile = new FormData();
    noFile.append('name', 'No file');
    expect((await call(`${base}/add-from-file`, { headers: withKey(), form: noFile })).status).toBe(400);

    expect((await call(`${base}?page_size=2`, { headers: withKey() })).status).toBe(200);
    expect((await call(`${base}?page_size=0`, { headers: withKey() })).status).toBe(400);
    expect((await call(`${base}/${id}`, { headers: withKey() })).status).toBe(200);
    expect((await call(`${base}/nobody`, { headers: withKey() })).status).toBe(404);
    const renamed = await call(`${base}/${id}`, {
      method: 'PATCH',
      headers: withKey(),
      json: { name: 'Renamed words' },
    });
    expect(renamed.status).toBe(200);
    const missing = await call(`${base}/nobody`, { method: 'PATCH', headers: withKey(), json: { name: 'x' } });
    expect(missing.status).toBe(404);

    const download = await call(`${base}/${id}/${versionId}/download`, { headers: withKey() });
    expect(download.status).toBe(200);
    expect((await call(`${base}/${id}/nope/download`, { headers: withKey() })).status).toBe(404);

    const more = { rules: [{ type: 'alias', string_to_replace: 'FYI', alias: 'for your information' }] };
    expect((await call(`${base}/${id}/add-rules`, { headers: withKey(), json: more })).status).toBe(200);
    expect((await call(`${base}/nobody/add-rules`, { headers: withKey(), json: more })).status).toBe(404);
    expect((await call(`${base}/${id}/set-rules`, { headers: withKey(), json: { rules: [rule] } })).status).toBe(200);
    expect((await call(`${base}/nobody/set-rules`, { headers: withKey(), json: { rules: [rule] } })).status).toBe(404);
    const removal = { rule_strings: ['ASAP'] };
    expect((await call(`${base}/${id}/remove-rules`, { headers: withKey(), json: removal })).status).toBe(200);
    expect((await call(`${base}/nobody/remove-rules`, { headers: withKey(), json: removal })).status).toBe(404);
  });

  it('every operation of the document was called with a success and with an error', () => {
    const paths = speechOpenApi().paths as Record<string, Record<string, unknown>>;
    const operations = Object.entries(paths).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((method) => method !== 'parameters')
        .map((method) => `${method.toUpperCase()} ${path}`),
    );
    const missing = operations.filter(
      (operation) => !(exercised.get(operation)?.has('success') && exercised.get(operation)?.has('error')),
    );
    expect(missing).toEqual([]);
  });
});
