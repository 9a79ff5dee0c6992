import type { Api } from './api';
import { busy, byId, el, say, submitButton } from './dom';
import type { Voice } from './speak';
import { recordingAsWav } from './wav';

/**
 * The Voices tab: clone a voice from uploaded files and microphone recordings, list the account's
 * clones and delete them. `onChange` hands the new voice list (and a voice to select) to the Speak tab.
 */
export function voicesPanel(api: Api, onChange: (voices: Voice[], select?: string) => void) {
  const form = byId('clone-form', HTMLFormElement);
  const name = byId('clone-name', HTMLInputElement);
  const files = byId('clone-files', HTMLInputElement);
  const recordButton = byId('record', HTMLButtonElement);
  const recordStatus = byId('record-status');
  const samples = byId('clone-samples', HTMLUListElement);
  const status = byId('clone-status');
  const list = byId('voice-list', HTMLUListElement);
  const recordings: File[] = [];
  let recorder: MediaRecorder | null = null;

  const showSamples = () => {
    const chosen = [...(files.files ?? [])].map((f) => f.name);
    samples.replaceChildren(...[...chosen, ...recordings.map((r) => r.name)].map((n) => el('li', {}, n)));
  };

  const reload = async (select?: string) => {
    const { voices } = await api.json<{ voices: Voice[] }>('/v1/voices');
    onChange(voices, select);
    const clones = voices.filter((v) => v.category === 'cloned');
    list.replaceChildren(...clones.map(voiceRow));
    if (clones.length === 0) list.append(el('li', { class: 'muted' }, 'No clones yet.'));
  };

  const voiceRow = (voice: Voice) => {
    const remove = el('button', { type: 'button', 'aria-label': `Delete ${voice.name}` }, 'Delete');
    remove.addEventListener(
      'click',
      () =>
        void busy(remove, status, async () => {
          if (!confirm(`Delete the voice “${voice.name}”? Its recordings go too.`)) return;
          await api.json(`/v1/voices/${encodeURIComponent(voice.voice_id)}`, { method: 'DELETE' });
          await reload();
          say(status, `Deleted ${voice.name}.`);
        }),
    );
    return el('li', { 'data-voice-id': voice.voice_id }, el('strong', {}, voice.name), ' ', remove);
  };

  const startRecording = async () => {
    const stream = await navigator.mediaDevices.getUserMedia({ audio: true });
    const parts: Blob[] = [];
    recorder = new MediaRecorder(stream);
    recorder.addEventListener('dataavailable', (event) => parts.push(event.data));
    recorder.addEventListener('stop', () => {
      stream.getTracks().forEach((track) => track.stop());
      void recordingAsWav(new Blob(parts, { type: recorder?.mimeType }))
        .then((wav) => {
          recordings.push(new File([wav], `recording-${recordings.length + 1}.wav`, { type: 'audio/wav' }));
          showSamples();
          say(recordStatus, `Recording ${recordings.length} added.`);
        })
        .catch((err: unknown) => say(recordStatus, `The recording could not be read: ${String(err)}`, true));
    });
    recorder.start();
    recordButton.textContent = 'Stop recording';
    recordButton.setAttribute('aria-pressed', 'true');
    say(recordStatus, 'Recording… read a few sentences aloud, then stop.');
  };

  const stopRecording = () => {
    recorder?.stop();
    recorder = null;
    recordButton.textContent = 'Record from microphone';
    recordButton.setAttribute('aria-pressed', 'false');
  };

  recordButton.addEventListener('click', () => {
    if (recorder) stopRecording();
    else
      void startRecording().catch((err: unknown) =>
        say(recordStatus, `No microphone: ${err instanceof Error ? err.message : String(err)}`, true),
      );
  });
  files.addEventListener('change', showSamples);

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void busy(submitButton(form), status, async () => {
      const all = [...(files.files ?? []), ...recordings];
      if (all.length === 0) throw new Error('Add a recording: choose a file or record one.');
      const body = new FormData();
      body.set('name', name.value);
      for (const file of all) body.append('files', file, file.name);
      say(status, 'Uploading and analysing…');
      const created = await api.json<{ voice_id: string }>('/v1/voices/add', { method: 'POST', body });
      const createdName = name.value;
      form.reset();
      recordings.length = 0;
      showSamples();
      await reload(created.voice_id);
      say(status, `Created “${createdName}”: it is selected on the Speak tab.`);
    });
  });

  return { reload };
}
