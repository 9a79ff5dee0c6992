import { SpeechError } from '@platform/errors';

export function historyNotFound(id: string): SpeechError {
  return new SpeechError(404, 'error', `A history item with the id ${id.slice(0, 64)} was not found.`);
}

export function historyWithoutAudio(id: string, state: string): SpeechError {
  return new SpeechError(404, 'error', `The history item ${id} (${state}) has no audio.`);
}
