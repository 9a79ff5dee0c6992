import type { Api } from './api';
import { playStreaming } from './audio-stream';
import type { DictionaryLocator } from './dictionaries';
import { busy, byId, el, say, submitButton } from './dom';

export interface Voice {
  voice_id: string;
  name: string;
  category: string;
}
interface Model {
  model_id: string;
  name: string;
}

/**
 * The Speak tab: voice and model pickers, and text to speech streamed into the audio element, with the
 * pronunciation dictionary `dictionaries()` names (dictionaries.ts), if any.
 */
export function speakPanel(api: Api, dictionaries: () => DictionaryLocator[], onSpoken: () => void) {
  const form = byId('speak-form', HTMLFormElement);
  const voice = byId('voice', HTMLSelectElement);
  const model = byId('model', HTMLSelectElement);
  const text = byId('text', HTMLTextAreaElement);
  const audio = byId('speak-audio', HTMLAudioElement);
  const status = byId('speak-status');

  const showVoices = (voices: Voice[], select?: string) => {
    const keep = select ?? voice.value;
    voice.replaceChildren(
      ...voices.map((v) =>
        el('option', { value: v.voice_id }, v.category === 'cloned' ? `${v.name} (your clone)` : v.name),
      ),
    );
    if (voices.some((v) => v.voice_id === keep)) voice.value = keep;
  };

  const loadModels = async () => {
    const { models } = await api.json<{ models: Model[] }>('/v1/models');
    model.replaceChildren(...models.map((m) => el('option', { value: m.model_id }, m.name)));
  };

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void busy(submitButton(form), status, async () => {
      say(status, 'Synthesising…');
      const startedAt = performance.now();
      const locators = dictionaries();
      const response = await api.fetch(
        `/v1/text-to-speech/${encodeURIComponent(voice.value)}/stream?output_format=mp3_44100_128`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'audio/mpeg' },
          body: JSON.stringify({
            text: text.value,
            model_id: model.value,
            ...(locators.length > 0 ? { pronunciation_dictionary_locators: locators } : {}),
          }),
        },
      );
      const result = await playStreaming(audio, response, startedAt);
      audio.dataset.chunks = String(result.chunks);
      audio.dataset.streamed = String(result.streamed);
      say(
        status,
        result.streamed
          ? `First audio after ${Math.round(result.firstAudioMs)} ms; all ${Math.round(result.bytes / 1024)} KiB in ${result.chunks} pieces after ${Math.round(result.totalMs)} ms.`
          : `This browser cannot stream MP3: played the whole file after ${Math.round(result.totalMs)} ms.`,
      );
      onSpoken();
    });
  });

  return { showVoices, loadModels, select: (voiceId: string) => (voice.value = voiceId) };
}
