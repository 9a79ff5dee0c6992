import { UPLOAD_LIMITS } from '../../apps/gateway/src/speech/voices/upload-limits';
import { eventually, type Platform } from '../gateway/platform';
import {
  encodeForm,
  longestSample,
  newCaller as newCallerOf,
  startProber,
  startUploadPlatform,
  streamedBody,
  upload as uploadTo,
  stackPids,
  yieldProcesses,
  type Caller,
} from './support/voice-uploads';

/**
 * `/healthz` keeps answering within 50 ms while the largest allowed clone upload is decoded and
 * analysed (on worker threads, at the lowest CPU priority). Each probe's time is counted without the
 * time the gateway's main thread or the prober waited for a core (`Probe.servedMs`): the client, the
 * stack's servers and the analysis share two cores here, and a probe queued behind them is the
 * machine's business, not work on the gateway's event loop. This file is in the `alone` jest project,
 * which `npm test` runs by itself after every other test, once the cores are idle.
 */
const HEALTHZ_BOUND_MS = 50;

let platform: Platform;
let gateway: string;
const newCaller = (name: string): Promise<Caller> => newCallerOf(platform, name);
const upload = (caller: Caller, contentType: string, stream: ReadableStream<Uint8Array>): Promise<Response> =>
  uploadTo(gateway, caller, contentType, stream);

beforeAll(async () => {
  platform = await startUploadPlatform(1);
  gateway = platform.publicUrl;
}, 120_000);

afterAll(async () => {
  await platform?.stop();
}, 30_000);

describe('voice cloning does not stall the gateway', () => {
  it("/healthz is answered within 50 ms of the gateway's time while the largest allowed upload is decoded and analysed", async () => {
    const me = await newCaller('Big upload');
    const sample = longestSample();
    // As many of the longest files as the per-request byte bound allows, never more than maxFiles.
    const count = Math.min(
      UPLOAD_LIMITS.maxFiles,
      Math.floor((UPLOAD_LIMITS.maxTotalBytes - 64 * 1024) / sample.length),
    );
    expect(count).toBe(UPLOAD_LIMITS.maxFiles);
    const files = Array.from({ length: count }, (_, i) => ({ name: `long-${i}.flac`, bytes: sample }));
    const { body, contentType } = await encodeForm({ name: 'Ten long samples' }, files);

    const prober = startProber(`${gateway}/healthz`, platform.gateways[0]!.process.pid!);
    // The prober is up and warm (its first fetch sets up its client and connection) before the upload starts.
    await eventually(() => prober.probes.length >= 5, 10_000);
    // The uploading client (this test process) and the stack's mongod, Kafka and Redis would be on other
    // machines in use; here they share two cores with the gateway. While the client pushes 40 MB through
    // loopback it takes a whole core, and while mongod stores the samples its threads take the rest: two
    // CI runs each saw one probe over the bound, one while the body was still being sent (56 ms) and one
    // while the samples were being stored (96 ms), every other probe under 20 ms. So every thread of
    // theirs (this process's garbage-collector and I/O threads too: a third run, with only this
    // process's main thread lowered, saw 50.6 ms just after the body was sent) yields to the server under
    // test where permitted, as the prober runs above it; the gateway keeps its own priority.
    const restore = yieldProcesses([process.pid, ...stackPids()]);
    const uploadStartedAt = Date.now();
    const streamed = streamedBody(body);
    let bodySentAt = Number.POSITIVE_INFINITY;
    void streamed.sent.then(() => (bodySentAt = Date.now()));
    const res = await upload(me, contentType, streamed.stream).finally(restore);
    const answeredAt = Date.now();
    const probes = (await prober.stop()).filter((p) => p.sentAt >= uploadStartedAt);
    expect({ status: res.status, body: await res.json() }).toEqual({
      status: 200,
      body: {
        voice_id: expect.stringMatching(/^[A-Za-z0-9]{20}$/),
        name: 'Ten long samples',
        category: 'cloned',
        requires_verification: false,
      },
    });
    // The analysis of ten two-minute files takes seconds: many probes fell inside it.
    expect(probes.filter((p) => p.sentAt > bodySentAt && p.sentAt < answeredAt).length).toBeGreaterThanOrEqual(10);
    expect(probes.every((p) => p.status === 200)).toBe(true);
    const slowest = [...probes].sort((a, b) => b.servedMs - a.servedMs).slice(0, 5);
    console.log(
      `slowest probes (latency = served + waiting for a core, ms): ${slowest
        .map((p) => `${p.latencyMs} = ${p.servedMs.toFixed(2)} + ${p.waitMs}`)
        .join(', ')}`,
    );
    if (slowest[0] && slowest[0].servedMs >= HEALTHZ_BOUND_MS) {
      // Where in the request the slow probes fell (ms after the upload started; body fully sent and answered at):
      // the phase names the work to look at (multipart parsing, analysis, storing the samples).
      const at = (t: number): number => t - uploadStartedAt;
      console.error(
        JSON.stringify({
          bodySentAt: at(bodySentAt),
          answeredAt: at(answeredAt),
          slowest: slowest.map((p) => ({ sentAt: at(p.sentAt), latencyMs: p.latencyMs, waitMs: p.waitMs })),
        }),
      );
    }
    expect(Math.max(...probes.map((p) => p.servedMs))).toBeLessThan(HEALTHZ_BOUND_MS);
  }, 120_000);
});
