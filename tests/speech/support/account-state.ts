import { eventually } from '@platform/testing';
import type { SpeechStack } from './speech-stack';

/** Where a speech account is reached: a speech stack, or a platform's gateway with an account's API key. */
export type SpeechAccount = Pick<SpeechStack, 'url' | 'apiKey'>;

/** The stack account's `character_count` (reservations of running generations included). */
export async function characterCount(stack: SpeechAccount): Promise<number> {
  const res = await fetch(`${stack.url}/v1/user/subscription`, { headers: { 'xi-api-key': stack.apiKey } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { character_count: number }).character_count;
}

/** A history item as `GET /v1/history` lists it (the fields the fault tests read). */
export interface HistoryItem {
  history_item_id: string;
  text: string;
  state: string;
  character_count_from_request: number;
  character_count_change_to: number;
}

/** The stack account's history items, newest first. */
export async function historyItems(stack: SpeechAccount): Promise<HistoryItem[]> {
  const res = await fetch(`${stack.url}/v1/history?pageSize=1000`, { headers: { 'xi-api-key': stack.apiKey } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { history: HistoryItem[] }).history;
}

/**
 * The history items `matches` picks, once there is at least one. A worker records a generation it
 * finished after the client got the end of its stream, so a test reading right away can be early.
 */
export async function recordedHistory(
  stack: SpeechAccount,
  matches: (item: HistoryItem) => boolean,
  atLeast = 1,
): Promise<HistoryItem[]> {
  let items: HistoryItem[] = [];
  await eventually(
    async () => {
      items = (await historyItems(stack)).filter(matches);
      return items.length >= atLeast;
    },
    30_000,
    100,
  );
  return items;
}
