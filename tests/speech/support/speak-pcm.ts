import { eventually } from '@platform/testing';
import type { SpeechAccount } from './account-state';
import { pcmSamples } from './audio';

/**
 * Speaks `body` with `voiceId` as 16 kHz PCM through `POST /v1/text-to-speech/{voice_id}`; answers the
 * audio and the model its history item records (the model a hosted id or a language chose).
 */
export async function speakPcm(
  stack: SpeechAccount,
  voiceId: string,
  body: Record<string, unknown>,
): Promise<{ pcm: Int16Array; model: string }> {
  const headers = { 'content-type': 'application/json', 'xi-api-key': stack.apiKey };
  const res = await fetch(`${stack.url}/v1/text-to-speech/${voiceId}?output_format=pcm_16000`, {
    method: 'POST',
    headers,
    body: JSON.stringify(body),
  });
  // The refusal's body, not only its status, when it is not audio: it names the cause.
  expect({ status: res.status, refusal: res.status === 200 ? null : await res.text() }).toEqual({
    status: 200,
    refusal: null,
  });
  const pcm = pcmSamples(Buffer.from(await res.arrayBuffer()));
  const id = res.headers.get('history-item-id');
  expect(id).toBeTruthy();
  let model = '';
  await eventually(async () => {
    const item = await fetch(`${stack.url}/v1/history/${id}`, { headers });
    if (item.status !== 200) return false;
    model = ((await item.json()) as { model_id: string }).model_id;
    return true;
  }, 10_000);
  return { pcm, model };
}
