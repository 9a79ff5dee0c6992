import type { HistoryDoc } from '@platform/speech-store';

/** A history item in the speech API's shape (plus `model_id`, which the hosted API also reports, and the
 * `character_count_change_*` pair the official SDK requires). */
export function historyItemBody(doc: HistoryDoc) {
  return {
    history_item_id: doc._id,
    voice_id: doc.voiceId,
    voice_name: doc.voiceName,
    model_id: doc.modelId,
    text: doc.text,
    date_unix: doc.dateUnix,
    character_count_from_request: doc.characterCount,
    // The official SDK requires these two; we report the item's own charge as a change from 0.
    // Only a complete generation is charged (a failed or cancelled one is settled at 0).
    character_count_change_from: 0,
    character_count_change_to: doc.state === 'complete' ? doc.characterCount : 0,
    content_type: doc.contentType,
    state: doc.state,
    settings: { stability: doc.settings.stability, similarity_boost: doc.settings.similarity_boost },
  };
}
