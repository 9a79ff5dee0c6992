import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PIPER_VOICES_DIR, startSpeechStack, type SpeechStack } from './support/speech-stack';

/**
 * A worker whose neural model cannot load (here: a corrupt .onnx file) stays ready for eSpeak NG,
 * says in `/readyz` that the neural model failed, and refuses neural jobs with a clear message
 * instead of hanging or answering with another engine's voice (docs/operations.md).
 */
const JOE = 'jo5Pq8Nr2Lm7Kv4Ws9Xz';

let stack: SpeechStack;
let corruptDir: string;
beforeAll(async () => {
  corruptDir = fs.mkdtempSync(path.join(os.tmpdir(), 'corrupt-piper-'));
  const config = path.join(PIPER_VOICES_DIR, 'en_US-joe-medium.onnx.json');
  fs.copyFileSync(config, path.join(corruptDir, 'en_US-joe-medium.onnx.json'));
  fs.writeFileSync(path.join(corruptDir, 'en_US-joe-medium.onnx'), 'this is not an ONNX model');
  // The edge lists the neural model (its own voices directory is intact); the only worker's is corrupt.
  stack = await startSpeechStack({ workers: 0, concurrency: 1, neural: true });
  await stack.startWorker({ PIPER_VOICES_DIR: corruptDir });
}, 90_000);
afterAll(async () => {
  await stack?.stop();
  fs.rmSync(corruptDir, { recursive: true, force: true });
}, 30_000);

function speak(modelId: string) {
  return fetch(`${stack.url}/v1/text-to-speech/${JOE}?output_format=pcm_16000`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'xi-api-key': stack.apiKey },
    body: JSON.stringify({ text: 'Hello there.', model_id: modelId }),
  });
}

describe('a worker whose neural model failed to load', () => {
  it('is ready, and its readiness says the neural model failed and it serves eSpeak NG only', async () => {
    const res = await fetch(`${stack.workers[0]!.url}/readyz`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { checks: Record<string, string> };
    expect(body.checks.neural).toMatch(/^failed to load, serving eSpeak NG only: /);
  });

  it('refuses a neural job with the reason, and still speaks eSpeak NG', async () => {
    const neural = await speak('piper_en_us_v1');
    expect(neural.status).toBe(502);
    const { detail } = (await neural.json()) as { detail: { status: string; message: string } };
    expect(detail.status).toBe('error');
    expect(detail.message).toMatch(/neural model is not available on this worker/);
    const espeak = await speak('espeak_ng_v1');
    expect(espeak.status).toBe(200);
    expect((await espeak.arrayBuffer()).byteLength).toBeGreaterThan(16_000);
  }, 60_000);
});
