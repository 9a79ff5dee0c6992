import type { StoredVoice, VoiceSettings } from '@platform/speech-store';

/** A Voice in the speech API's shape; the single-voice answer adds `preview_url` and `settings`. */
export function voiceBody(voice: StoredVoice, detail?: { previewUrl: string | null; settings: VoiceSettings }) {
  const base =
    voice.category === 'premade'
      ? {
          voice_id: voice.premade.voiceId,
          name: voice.premade.name,
          samples: [],
          category: 'premade',
          labels: voice.premade.labels,
          description: voice.premade.description,
        }
      : {
          voice_id: voice.doc._id,
          name: voice.doc.name,
          samples: voice.doc.samples.map((s) => ({
            sample_id: s.sample_id,
            file_name: s.file_name,
            mime_type: s.mime_type,
            size_bytes: s.size_bytes,
            hash: s.hash,
          })),
          category: 'cloned',
          labels: voice.doc.labels ?? {},
          description: voice.doc.description,
        };
  if (!detail) return base;
  return { ...base, preview_url: detail.previewUrl, settings: detail.settings };
}
