import { Writable } from 'node:stream';
import fc from 'fast-check';
import { createLogger, redactHeaders, redactUrl, scrubSecrets, REDACTED } from '../src';

const JWT =
  'eyJhbGciOiJFUzI1NiIsInR5cCI6ImF0K2p3dCJ9.eyJzdWIiOiJ1c2VyLTEiLCJzY29wZSI6ImNvbnRlbnQ6cmVhZCJ9.MEUCIQDx3X4kQ2z8vYw-_abc';
const API_KEY = `sk_${'0123456789abcdef'.repeat(4)}`;
const REFRESH = 'rt_Q2xhdWRlIHdhcyBoZXJlIGFuZCB0aGlzIGlzIGZha2U';
const SESSION = 'kq3Xv9LmN0pR7sT2uW5yZ8aB1cD4eF6gH-iJ_kLmNoP';
const CODE = 'Zx81vQpLm2Nk7Rt4Ws9Yb3Hc6Jd0Fg5Ae-Tu_Io8Kp';

/** Lines a logger writes, parsed. */
function captured(): { lines: () => Record<string, unknown>[]; raw: () => string; stream: Writable } {
  let raw = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      raw += chunk.toString();
      callback();
    },
  });
  return {
    stream,
    raw: () => raw,
    lines: () =>
      raw
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

describe('redactUrl: query values logged only for parameters known to carry no secret', () => {
  it.each([
    [`/cb?code=${CODE}&state=xyz&iss=http%3A%2F%2Fa`, `/cb?code=${REDACTED}&state=${REDACTED}&iss=${REDACTED}`],
    ['/api/v1/posts?page=2&size=10&sort=createdAt', '/api/v1/posts?page=2&size=10&sort=createdAt'],
    [
      `/v1/text-to-speech/v1/stream-input?xi_api_key=${API_KEY}&model_id=m1`,
      `/v1/text-to-speech/v1/stream-input?xi_api_key=${REDACTED}&model_id=m1`,
    ],
    [
      '/graphql?query=%7Bx%7D&variables=%7B%22password%22%3A%22p%22%7D&operationName=Q',
      `/graphql?query=${REDACTED}&variables=${REDACTED}&operationName=Q`,
    ],
    [`https://client.example/cb#access_token=${JWT}&token_type=bearer`, `https://client.example/cb#${REDACTED}`],
    [
      '/authorize?client_id=c1&redirect_uri=http%3A%2F%2F127.0.0.1%2Fcb&scope=a+b&state=s1',
      `/authorize?client_id=c1&redirect_uri=http%3A%2F%2F127.0.0.1%2Fcb&scope=a+b&state=${REDACTED}`,
    ],
    ['/device?user_code=ABCD-EFGH', `/device?user_code=${REDACTED}`],
    ['/jwks', '/jwks'],
    ['/x?flag&empty=', '/x?flag&empty='],
  ])('%s', (url, expected) => {
    expect(redactUrl(url)).toBe(expected);
  });
});

describe('redactHeaders', () => {
  it('replaces credentials and a redirect’s code, keeps the rest', () => {
    expect(
      redactHeaders({
        'set-cookie': [`auth_sid=${SESSION}; HttpOnly`, 'auth_csrf=abc'],
        Location: `http://127.0.0.1:9/cb?code=${CODE}&state=s`,
        'content-type': 'application/json',
        'x-ratelimit-remaining': 4,
        authorization: `Bearer ${JWT}`,
      }),
    ).toEqual({
      'set-cookie': REDACTED,
      Location: `http://127.0.0.1:9/cb?code=${REDACTED}&state=${REDACTED}`,
      'content-type': 'application/json',
      'x-ratelimit-remaining': 4,
      authorization: REDACTED,
    });
  });
});

describe('scrubSecrets: every serialized line', () => {
  it.each([
    ['a JWT anywhere', `token ${JWT} rejected`, JWT],
    [
      'an API key in a WebSocket URL',
      `{"msg":"upgrade failed","url":"wss://h/v1/x/stream-input?xi_api_key=${API_KEY}"}`,
      API_KEY,
    ],
    ['an API key alone', `{"key":"${API_KEY}"}`, API_KEY],
    ['a refresh token', `grant failed for ${REFRESH}`, REFRESH],
    ['a bearer credential', `{"err":"Authorization: Bearer abcdefgh12345678 refused"}`, 'abcdefgh12345678'],
    ['Basic credentials', 'Basic Y2xpZW50OnNlY3JldA==', 'Y2xpZW50OnNlY3JldA=='],
    ['code= in a message', `{"msg":"redirect to http://c/cb?code=short1&state=st8"}`, 'short1'],
    ['state= in a message', `{"msg":"redirect to http://c/cb?code=short1&state=st8"}`, 'st8'],
    ['access_token= in a form body', `access_token=abc.def&x=1`, 'abc.def'],
    ['refresh_token= in a form body', `grant_type=refresh_token&refresh_token=plain123`, 'plain123'],
    ['a cookie pair', `cookie: auth_sid=s3ss10n; other=1`, 's3ss10n'],
    ['a password member at any depth', '{"a":{"b":{"c":{"password":"hunter2 \\" quoted"}}}}', 'hunter2'],
    ['a set-cookie array member', '{"headers":{"set-cookie":["a=1","b=2"]}}', 'a=1'],
    ['an opaque session id', `{"sid":"${SESSION}"}`, SESSION],
    ['an opaque code', `{"msg":"saw ${CODE}"}`, CODE],
    ['a connection URL password', '{"err":"connect ECONNREFUSED redis://:s3cret-pw@10.0.0.5:6379"}', 's3cret-pw'],
    ['a MongoDB URL password', 'failed: mongodb://app:pa55word@db1:27017,db2:27017/?replicaSet=rs0', 'pa55word'],
  ])('%s', (_name, line, secret) => {
    const scrubbed = scrubSecrets(line);
    expect(scrubbed).not.toContain(secret);
    expect(scrubbed).toContain(REDACTED);
  });

  it.each([
    ['a UUID request id', '{"req":{"id":"7d7b5bc2-5e43-4f0e-9a8b-8f5d9e1f2a3b"}}'],
    ['an ObjectId', '{"postId":"65a1f0c2b3d4e5f6a7b8c9d0"}'],
    ['a hex key id', '{"keyId":"key_0123456789abcdef"}'],
    [
      'error codes and words',
      '{"err":{"code":"ECONNREFUSED","type":"NotWritablePrimaryError"},"msg":"upstream unavailable"}',
    ],
    ['a voice id', '{"voice":"21m00Tcm4TlvDq8ikWAM"}'],
    ['an error code member', '{"code":"invalid_grant","state":"open"}'],
    ['a URL without credentials', '{"url":"mongodb://127.0.0.1:27027/?replicaSet=rs0","other":"http://a:8080/x"}'],
  ])('leaves %s alone', (_name, line) => {
    expect(scrubSecrets(line)).toBe(line);
  });

  it('keeps a JSON line JSON, and no inserted secret survives (fast-check)', () => {
    const secret = fc.constantFrom(
      JWT,
      API_KEY,
      REFRESH,
      SESSION,
      CODE,
      `code=${CODE}`,
      `Bearer ${JWT}`,
      `http://c/cb?state=s&code=${CODE}`,
    );
    const value = fc.oneof(fc.string(), secret, fc.integer(), fc.constant(null));
    const record = fc.dictionary(
      fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('password', 'cookie', 'code', 'msg', 'url')),
      fc.oneof(value, fc.array(value, { maxLength: 3 }), fc.dictionary(fc.string({ maxLength: 5 }), value)),
    );
    fc.assert(
      fc.property(record, (object) => {
        const line = JSON.stringify(object);
        const scrubbed = scrubSecrets(line);
        expect(() => JSON.parse(scrubbed) as unknown).not.toThrow();
        for (const s of [JWT, API_KEY, REFRESH, SESSION, CODE]) expect(scrubbed).not.toContain(s);
      }),
      { numRuns: 1000, seed: 20261124 },
    );
  });
});

describe('createLogger', () => {
  it('scrubs every line, child loggers and error objects included', () => {
    const out = captured();
    const logger = createLogger('test', 'info', out.stream);
    logger
      .child({ component: 'ws' })
      .error({ err: new Error(`upgrade failed: wss://h/v1/x?xi_api_key=${API_KEY}`) }, 'upgrade failed');
    logger.info(
      { res: { headers: { 'set-cookie': [`auth_sid=${SESSION}`] } }, detail: { refresh_token: REFRESH } },
      `token ${JWT}`,
    );
    logger.warn({ req: { headers: { cookie: `auth_sid=${SESSION}`, authorization: `DPoP ${JWT}` } } }, 'odd request');
    const raw = out.raw();
    for (const s of [API_KEY, SESSION, REFRESH, JWT]) expect(raw).not.toContain(s);
    const lines = out.lines();
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatchObject({
      component: 'ws',
      msg: 'upgrade failed',
      err: { message: `upgrade failed: wss://h/v1/x?xi_api_key=${REDACTED}` },
    });
    expect(lines[1]).toMatchObject({ msg: `token ${REDACTED}`, detail: { refresh_token: REDACTED } });
    expect(lines[2]).toMatchObject({ req: { headers: { cookie: REDACTED, authorization: REDACTED } } });
  });

  it('logs an error without the request body or headers it carries (body-parser, HTTP clients)', () => {
    const out = captured();
    const logger = createLogger('test', 'info', out.stream);
    const parseError = Object.assign(new SyntaxError('Unexpected token } in JSON'), {
      type: 'entity.parse.failed',
      status: 400,
      body: '{"email":"a@example.com","pass": "correct horse battery"}',
      headers: { 'x-custom': 'private' },
    });
    logger.error({ err: parseError }, 'request failed');
    const [line] = out.lines();
    expect(line).toMatchObject({ err: { type: 'SyntaxError', message: 'Unexpected token } in JSON', status: 400 } });
    expect(out.raw()).not.toContain('correct horse battery');
    expect(out.raw()).not.toContain('private');
  });
});
