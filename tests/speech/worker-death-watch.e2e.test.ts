import { eventually } from '@platform/testing';
import { characterCount, recordedHistory } from './support/account-state';
import { followStream } from './support/job-streams';
import { startSpeechStack, type SpeechStack } from './support/speech-stack';

/**
 * A killed worker is seen by its Redis connection closing (docs/decisions.md, worker liveness): the
 * other workers' death watch (SYNTHESIS_DEATH_WATCH_MS) releases its job locks and the job is
 * resumed at once, not after its lock lapses. With a one-minute lock here, a resume within the test
 * shows the lock was released, and the survivor's log names the job it released.
 */

const RACHEL = '21m00Tcm4TlvDq8ikWAM';
/** Far beyond the test's waits: only a released lock lets another worker take the job. */
const LOCK_MS = 60_000;
const sentences = (label: string, n: number) =>
  Array.from({ length: n }, (_, i) => `${label} sentence ${i + 1} keeps the worker busy for a while.`).join(' ');

function stream(stack: SpeechStack, text: string) {
  return fetch(`${stack.url}/v1/text-to-speech/${RACHEL}/stream?output_format=pcm_22050`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'xi-api-key': stack.apiKey },
    body: JSON.stringify({ text }),
  });
}

describe('a killed worker seen by its closed connection', () => {
  let stack: SpeechStack;
  beforeAll(async () => {
    stack = await startSpeechStack({
      workers: 2,
      concurrency: 1,
      lockMs: LOCK_MS,
      workerEnv: { SYNTHESIS_DEATH_WATCH_MS: '100' },
      accountSpeech: true,
      storeQuota: true,
    });
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  }, 30_000);

  it('its stream is resumed long before its lock could lapse: byte-identical, charged once', async () => {
    const text = sentences('Watched', 80);
    const reference = await stream(stack, text);
    expect(reference.status).toBe(200);
    const expected = Buffer.from(await reference.arrayBuffer());
    const before = await characterCount(stack);

    const res = await stream(stack, text);
    expect(res.status).toBe(200);
    const jobId = res.headers.get('history-item-id')!;
    const body = res.arrayBuffer();
    const followed = followStream(stack.redis, `${stack.prefix}:job:${jobId}:audio`);
    const frames = followed.frames;
    await eventually(() => frames.some((f) => f.frame.type === 'piece'), 60_000, 5);
    const dead = frames[0]!.writer;
    const victim = stack.workers.find((w) => dead.endsWith(`:${w.process.pid}`))!;
    const survivor = stack.workers.find((w) => w !== victim)!;
    victim.process.kill('SIGKILL');
    await victim.exited;

    // Well within the dead worker's lock (a minute): released, not lapsed.
    await eventually(
      () => survivor.output().includes('releasing its jobs') && survivor.output().includes(jobId),
      20_000,
      10,
    );
    const audio = Buffer.from(await body);
    await followed.stop();
    expect(frames.some((f) => f.writer !== dead && f.frame.type === 'audio')).toBe(true);
    expect(frames.map((f) => f.frame.seq)).toEqual(frames.map((_, i) => i));
    expect(audio.equals(expected)).toBe(true);
    expect(await characterCount(stack)).toBe(before + [...text].length);
    const items = await recordedHistory(stack, (h) => h.history_item_id === jobId);
    expect(items).toEqual([
      expect.objectContaining({ state: 'complete', character_count_change_to: [...text].length }),
    ]);
  }, 120_000);
});
