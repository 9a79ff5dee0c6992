import { eventually, type Platform } from '../gateway/platform';
import { espeakWav, REFERENCE_TEXT } from '../voices/audio';
import {
  encodeForm,
  longestSample,
  newCaller as newCallerOf,
  startUploadPlatform,
  streamedBody,
  upload as uploadTo,
  type Caller,
} from './support/voice-uploads';

/**
 * Voice cloning must not stall the gateway: the plan's voice quota is checked before the upload is
 * read, and one upload of an account is analysed at a time. The real gateway process (tests/gateway
 * platform helpers); every account is on the free plan, whose voice limit this file sets with
 * SPEECH_PLANS. The latency of `/healthz` during the largest upload is measured, alone, by
 * voice-upload-latency.alone.test.ts.
 */
const VOICE_LIMIT = 1;

let platform: Platform;
let gateway: string;

const newCaller = (name: string): Promise<Caller> => newCallerOf(platform, name);
const upload = (caller: Caller, contentType: string, stream: ReadableStream<Uint8Array>): Promise<Response> =>
  uploadTo(gateway, caller, contentType, stream);

beforeAll(async () => {
  platform = await startUploadPlatform(VOICE_LIMIT);
  gateway = platform.publicUrl;
}, 120_000);

afterAll(async () => {
  await platform?.stop();
}, 30_000);

describe('voice cloning does not stall the gateway', () => {
  it('an account with no voice slot left is refused before its upload is read', async () => {
    const me = await newCaller('No slots');
    const small = await encodeForm({ name: 'Only voice' }, [
      { name: 'ref.wav', bytes: espeakWav(REFERENCE_TEXT, 'en+m3', 30) },
    ]);
    const first = await upload(me, small.contentType, streamedBody(small.body).stream);
    expect(first.status).toBe(200);

    // The second upload sends its head and the start of the first file, then waits for the answer.
    const { body, contentType } = await encodeForm({ name: 'One too many' }, [
      { name: 'long.flac', bytes: longestSample() },
    ]);
    let answered!: () => void;
    const answer = new Promise<void>((resolve) => (answered = resolve));
    const streamed = streamedBody(body, { holdAfter: 64 * 1024, hold: answer });
    const res = await upload(me, contentType, streamed.stream);
    answered();
    expect(streamed.sentBytes()).toBeLessThan(body.length);
    expect(res.status).toBe(429);
    expect(await res.json()).toEqual({
      detail: { status: 'quota_exceeded', message: expect.stringMatching(/allows 1 voices/) },
    });
  }, 60_000);

  it('one upload of an account at a time: a second one while the first is in progress is 429 too_many_requests', async () => {
    const me = await newCaller('Two at once');
    const { body, contentType } = await encodeForm({ name: 'First' }, [
      { name: 'ref.wav', bytes: espeakWav(REFERENCE_TEXT, 'en+m3', 30) },
    ]);
    let go!: () => void;
    const hold = new Promise<void>((resolve) => (go = resolve));
    const streamed = streamedBody(body, { holdAfter: 1024, hold });
    const first = upload(me, contentType, streamed.stream);
    // Until the first upload is admitted, a second one is (and, carrying no file, refused 400 with no
    // effect); once the first is in progress, the second is refused 429 before its body is read.
    const noFiles = await encodeForm({ name: 'Second' }, []);
    let refusal: unknown;
    await eventually(async () => {
      const res = await upload(me, noFiles.contentType, streamedBody(noFiles.body).stream);
      refusal = await res.json();
      if (res.status !== 429)
        expect({ status: res.status, body: refusal }).toEqual({
          status: 400,
          body: { detail: { status: 'bad_request', message: expect.stringMatching(/At least one audio file/) } },
        });
      return res.status === 429;
    }, 10_000);
    expect(refusal).toEqual({
      detail: { status: 'too_many_requests', message: expect.stringMatching(/At most 1 voice upload of an account/) },
    });
    go();
    expect((await first).status).toBe(200);
  }, 60_000);
});
