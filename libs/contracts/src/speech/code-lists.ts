import type { HistoryDoc, VoiceCategory } from '@platform/speech-store';

/**
 * `true` when `List` names every member of `Union`, else the members it leaves out. For the code's
 * lists that exist only as types: a constant of this type fails the build when the code gains a
 * value the document does not list.
 */
export type ListsEvery<Union, List extends readonly Union[]> = [Exclude<Union, List[number]>] extends [never]
  ? true
  : Exclude<Union, List[number]>;

/** The categories of voices that exist here (the speech store's `VoiceCategory`). */
export const VOICE_CATEGORIES = ['premade', 'cloned'] as const satisfies readonly VoiceCategory[];
const everyCategory: ListsEvery<VoiceCategory, typeof VOICE_CATEGORIES> = true;

/** A history item's `state` (the speech store's). */
export const HISTORY_STATES = ['complete', 'failed', 'cancelled'] as const satisfies readonly HistoryDoc['state'][];
const everyState: ListsEvery<HistoryDoc['state'], typeof HISTORY_STATES> = true;

void [everyCategory, everyState];
