import { ElevenLabs, ElevenLabsClient } from '@elevenlabs/elevenlabs-js';
import { eventually } from '@platform/testing';
import { parseMp3, readAll, rms } from './support/audio';
import { decode, probe } from './support/ffmpeg-decode';
import { startSpeechStack, type SpeechStack } from './support/speech-stack';
import { connectSession, errorOf } from './support/ws-session';

/**
 * Every `output_format` the official SDKs list, through the real pipeline (gateway edge, queue,
 * worker processes), decoded by Debian's ffmpeg/ffprobe: codec, sample rate, one channel, the
 * duration of the text's audio, the bit rate of MP3. Whole file, `/stream` and the WebSocket.
 * Formats the hosted API keeps for paid plans are refused to cheaper plans.
 */
const RACHEL = '21m00Tcm4TlvDq8ikWAM';
const TEXT = 'Hello there. Every format carries the same words.';
const SEGMENTS = ['First segment, sent alone. ', 'Then a second one follows.'];
const FORMATS: string[] = Object.values(ElevenLabs.TextToSpeechConvertRequestOutputFormat);
/** The engine's own rate: its PCM is the audio every format must keep the length of. */
const REFERENCE = 'pcm_22050';
/** Unknown length in a streamed WAV header (RIFF and data sizes), as ffmpeg writes when it cannot seek back. */
const UNKNOWN_SIZE = 0xffffffff;

let stack: SpeechStack;
/** Seconds of audio in TEXT (engine PCM), and in the WebSocket's two segments. */
let textSeconds: number;
let segmentsSeconds: number;

function post(path: string, body: unknown, key: string) {
  return fetch(`${stack.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'xi-api-key': key },
    body: JSON.stringify(body),
  });
}

async function body(
  path: string,
  format: string,
  key = stack.planKeys.pro,
): Promise<{ bytes: Buffer; contentType: string | null }> {
  const res = await post(`${path}?output_format=${format}`, { text: TEXT }, key);
  expect(res.status).toBe(200);
  return { bytes: Buffer.from(await res.arrayBuffer()), contentType: res.headers.get('content-type') };
}

/** A stream-input session sending SEGMENTS with a flush between them: the audio it got. */
async function websocketAudio(format: string): Promise<Buffer> {
  const s = connectSession(`${stack.wsUrl}/v1/text-to-speech/${RACHEL}/stream-input?output_format=${format}`, {
    'xi-api-key': stack.planKeys.pro,
  });
  await s.opened;
  s.ws.send(JSON.stringify({ text: ' ' }));
  for (const text of SEGMENTS) s.ws.send(JSON.stringify({ text, flush: true }));
  s.ws.send(JSON.stringify({ text: '' }));
  const closed = await s.closed;
  expect({ code: closed.code, error: errorOf(s) }).toEqual({ code: 1000, error: undefined });
  return Buffer.concat(s.binary);
}

const CODECS: Record<string, { codecName: string; formatName: string; contentType: (rate: string) => string }> = {
  mp3: { codecName: 'mp3', formatName: 'mp3', contentType: () => 'audio/mpeg' },
  pcm: { codecName: 'pcm_s16le', formatName: 's16le', contentType: (rate) => `audio/pcm;rate=${rate}` },
  wav: { codecName: 'pcm_s16le', formatName: 'wav', contentType: () => 'audio/wav' },
  ulaw: { codecName: 'pcm_mulaw', formatName: 'mulaw', contentType: () => 'audio/basic' },
  alaw: { codecName: 'pcm_alaw', formatName: 'alaw', contentType: () => 'audio/x-alaw-basic' },
  opus: { codecName: 'opus', formatName: 'ogg', contentType: () => 'audio/ogg;codecs=opus' },
};

/**
 * How far a decoded length may be from the engine's, per encoded stream: a lossy encoder's delay and
 * last frame's padding (LAME: about 1 100 samples and up to a frame), a resampling filter's tail.
 */
const tolerance = (codec: string) => (codec === 'mp3' || codec === 'opus' ? 0.12 : 0.01);

/**
 * Decodes a body as a player would and checks it is the format its name says, `seconds` long.
 * `streams`: independently encoded streams joined in the body (a WebSocket's segments are one job
 * each), each adding its encoder's delay and padding.
 */
async function expectFormat(format: string, bytes: Buffer, seconds: number, streams = 1): Promise<void> {
  const [codec, rate, kbps] = format.split('_') as [string, string, string | undefined];
  const probed = await probe(format, bytes);
  expect(probed).toMatchObject({ codecName: CODECS[codec]!.codecName, sampleRate: Number(rate), channels: 1 });
  expect(probed.formatName.split(',')).toContain(CODECS[codec]!.formatName);
  const decoded = await decode(format, bytes, Number(rate));
  expect(Math.abs(decoded.length / Number(rate) - seconds)).toBeLessThan(tolerance(codec) * streams);
  expect(rms(decoded)).toBeGreaterThan(300);
  if (codec === 'mp3') {
    expect(probed.bitRate).toBe(Number(kbps) * 1000);
    // Every audio frame at the declared rate and bit rate (LAME's first frame may be its Info tag).
    for (const frame of parseMp3(bytes).slice(1))
      expect(frame).toMatchObject({ sampleRate: Number(rate), bitrateKbps: Number(kbps) });
  }
}

beforeAll(async () => {
  // With the speech database: the history routes serve what the worker recorded.
  stack = await startSpeechStack({ workers: 1, concurrency: 2, accountSpeech: true });
  textSeconds = (await body(`/v1/text-to-speech/${RACHEL}`, REFERENCE)).bytes.length / 2 / 22050;
  segmentsSeconds = (await websocketAudio(REFERENCE)).length / 2 / 22050;
}, 90_000);

afterAll(async () => {
  await stack?.stop();
}, 30_000);

describe('every output format the SDKs list, whole file', () => {
  it.each(FORMATS)(
    '%s: the Content-Type, and ffmpeg decodes its rate, one channel, the text’s duration',
    async (format) => {
      const [codec, rate] = format.split('_') as [string, string];
      const { bytes, contentType } = await body(`/v1/text-to-speech/${RACHEL}`, format);
      expect(contentType).toBe(CODECS[codec]!.contentType(rate));
      await expectFormat(format, bytes, textSeconds);
    },
  );

  it.each(['wav_8000', 'wav_22050', 'wav_48000'])(
    '%s: a RIFF header with the file’s real sizes, over exactly the PCM of the same rate',
    async (format) => {
      const rate = format.split('_')[1]!;
      const { bytes } = await body(`/v1/text-to-speech/${RACHEL}`, format);
      const pcm = (await body(`/v1/text-to-speech/${RACHEL}`, `pcm_${rate}`)).bytes;
      expect(bytes.toString('latin1', 0, 4)).toBe('RIFF');
      expect(bytes.readUInt32LE(4)).toBe(bytes.length - 8);
      expect(bytes.toString('latin1', 36, 40)).toBe('data');
      expect(bytes.readUInt32LE(40)).toBe(bytes.length - 44);
      expect(bytes.subarray(44).equals(pcm)).toBe(true);
    },
  );

  it('the history item of a WAV is the file the client got, real sizes included', async () => {
    const res = await post(`/v1/text-to-speech/${RACHEL}?output_format=wav_24000`, { text: TEXT }, stack.planKeys.pro);
    expect(res.status).toBe(200);
    const delivered = Buffer.from(await res.arrayBuffer());
    const audioUrl = `${stack.url}/v1/history/${res.headers.get('history-item-id')}/audio`;
    let stored = Buffer.alloc(0);
    await eventually(async () => {
      const got = await fetch(audioUrl, { headers: { 'xi-api-key': stack.planKeys.pro } });
      stored = Buffer.from(await got.arrayBuffer());
      return got.status === 200;
    }, 10_000);
    expect(stored.readUInt32LE(40)).toBe(stored.length - 44);
    expect(stored.equals(delivered)).toBe(true);
  });

  it.each(['alaw_8000', 'ulaw_8000'])(
    '%s: G.711 that decodes to the PCM of the same rate within the codec’s step',
    async (format) => {
      const { bytes } = await body(`/v1/text-to-speech/${RACHEL}`, format);
      const pcm = (await body(`/v1/text-to-speech/${RACHEL}`, 'pcm_8000')).bytes;
      const reference = new Int16Array(Buffer.from(pcm).buffer, 0, pcm.length >> 1);
      const decoded = await decode(format, bytes, 8000);
      expect(decoded.length).toBe(reference.length);
      let error = 0;
      for (let i = 0; i < decoded.length; i++) error += (decoded[i]! - reference[i]!) ** 2;
      // G.711 keeps about 38 dB of signal to quantisation noise; the other law's decoding would not.
      expect(Math.sqrt(error / decoded.length)).toBeLessThan(rms(reference) * 0.05);
    },
  );
});

describe('every output format, streamed', () => {
  it.each(FORMATS)('%s over /stream: chunked, and ffmpeg decodes the same audio', async (format) => {
    const { bytes } = await body(`/v1/text-to-speech/${RACHEL}/stream`, format);
    await expectFormat(format, bytes, textSeconds);
    if (format.startsWith('wav_')) {
      // Streamed before its length is known: the sizes say "unknown", read to the end.
      expect(bytes.readUInt32LE(4)).toBe(UNKNOWN_SIZE);
      expect(bytes.readUInt32LE(40)).toBe(UNKNOWN_SIZE);
    }
  });

  it.each(FORMATS)('%s over the WebSocket: two segments join into one stream ffmpeg decodes', async (format) => {
    const bytes = await websocketAudio(format);
    await expectFormat(format, bytes, segmentsSeconds, SEGMENTS.length);
    if (format.startsWith('wav_')) {
      // One header for the connection, not one per segment.
      expect(bytes.toString('latin1', 0, 4)).toBe('RIFF');
      expect(bytes.indexOf('WAVEfmt ', 12, 'latin1')).toBe(-1);
    }
  });
});

describe('WAV in JSON', () => {
  it('with-timestamps carries the whole WAV file in audio_base64, real sizes included', async () => {
    const res = await post(
      `/v1/text-to-speech/${RACHEL}/with-timestamps?output_format=wav_16000`,
      { text: TEXT },
      stack.planKeys.pro,
    );
    expect(res.status).toBe(200);
    const wav = Buffer.from(((await res.json()) as { audio_base64: string }).audio_base64, 'base64');
    expect(wav.readUInt32LE(4)).toBe(wav.length - 8);
    expect(wav.readUInt32LE(40)).toBe(wav.length - 44);
    await expectFormat('wav_16000', wav, textSeconds);
  });

  it('the WebSocket’s JSON messages (the hosted shape) join into one WAV stream with one header', async () => {
    const s = connectSession(
      `${stack.wsUrl}/v1/text-to-speech/${RACHEL}/stream-input?output_format=wav_16000&shape=hosted`,
      { 'xi-api-key': stack.planKeys.pro },
    );
    await s.opened;
    s.ws.send(JSON.stringify({ text: ' ' }));
    for (const text of SEGMENTS) s.ws.send(JSON.stringify({ text, flush: true }));
    s.ws.send(JSON.stringify({ text: '' }));
    expect((await s.closed).code).toBe(1000);
    expect(s.binary).toHaveLength(0);
    const messages = s.texts.map((t) => JSON.parse(t) as { audio?: string | null });
    const bytes = Buffer.concat(messages.map((m) => Buffer.from(m.audio ?? '', 'base64')));
    expect(bytes.indexOf('WAVEfmt ', 12, 'latin1')).toBe(-1);
    await expectFormat('wav_16000', bytes, segmentsSeconds, SEGMENTS.length);
  });
});

describe('the official JS SDK', () => {
  it('convert with outputFormat wav_16000 gives a WAV file ffmpeg decodes at 16 kHz', async () => {
    const client = new ElevenLabsClient({ apiKey: stack.planKeys.pro, baseUrl: stack.url });
    const { bytes } = await readAll(
      await client.textToSpeech.convert(RACHEL, { text: TEXT, outputFormat: 'wav_16000' }),
    );
    expect(bytes.toString('latin1', 0, 4)).toBe('RIFF');
    await expectFormat('wav_16000', bytes, textSeconds);
  });

  it('stream with outputFormat alaw_8000 and mp3_24000_48', async () => {
    const client = new ElevenLabsClient({ apiKey: stack.planKeys.pro, baseUrl: stack.url });
    for (const outputFormat of ['alaw_8000', 'mp3_24000_48'] as const) {
      const { bytes } = await readAll(await client.textToSpeech.stream(RACHEL, { text: TEXT, outputFormat }));
      await expectFormat(outputFormat, bytes, textSeconds);
    }
  });
});

describe('formats kept for paid plans', () => {
  const refusal = (plan: string) => ({
    detail: { status: 'subscription_required', message: expect.stringContaining(`${plan} plan`) },
  });

  it('mp3_44100_192 needs creator: free is refused 403 subscription_required, creator gets it', async () => {
    const refused = await post(
      `/v1/text-to-speech/${RACHEL}?output_format=mp3_44100_192`,
      { text: TEXT },
      stack.planKeys.free,
    );
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual(refusal('creator'));
    const { bytes } = await body(`/v1/text-to-speech/${RACHEL}`, 'mp3_44100_192', stack.planKeys.creator);
    await expectFormat('mp3_44100_192', bytes, textSeconds);
  });

  it.each(['pcm_44100', 'pcm_48000', 'wav_44100', 'wav_48000'])(
    '%s needs pro: creator is refused on the whole file and /stream',
    async (format) => {
      for (const path of [`/v1/text-to-speech/${RACHEL}`, `/v1/text-to-speech/${RACHEL}/stream`]) {
        const res = await post(`${path}?output_format=${format}`, { text: TEXT }, stack.planKeys.creator);
        expect(res.status).toBe(403);
        expect(await res.json()).toEqual(refusal('pro'));
      }
    },
  );

  it('the WebSocket refuses a format the plan does not include and closes 1008', async () => {
    const s = connectSession(`${stack.wsUrl}/v1/text-to-speech/${RACHEL}/stream-input?output_format=wav_44100`, {
      'xi-api-key': stack.planKeys.creator,
    });
    await s.opened;
    s.ws.send(JSON.stringify({ text: ' ' }));
    s.ws.send(JSON.stringify({ text: 'Not for this plan.', flush: true }));
    const closed = await s.closed;
    expect(closed.code).toBe(1008);
    expect(errorOf(s)).toEqual(refusal('pro').detail);
    expect(s.binary).toHaveLength(0);
  });
});
