import type { OpenAiSpeechEvent } from '@platform/contracts';
import type { ChunkFraming } from '../tts/http-sinks';

const event = (e: OpenAiSpeechEvent): string => `data: ${JSON.stringify(e)}\n\n`;

/**
 * `stream_format: "sse"`: each piece of audio as a `speech.audio.delta` event (base64), then
 * `speech.audio.done` with the usage, counted in the characters charged (`input_tokens`).
 */
export function sseFraming(characters: number): ChunkFraming {
  return {
    contentType: 'text/event-stream',
    piece: (audio) => event({ type: 'speech.audio.delta', audio: audio.toString('base64') }),
    end: () =>
      event({
        type: 'speech.audio.done',
        usage: { input_tokens: characters, output_tokens: 0, total_tokens: characters },
      }),
  };
}
