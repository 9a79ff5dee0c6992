import type { SpeechStack } from './speech-stack';

/** The stack account's `character_count` (reservations of running generations included). */
export async function characterCount(stack: SpeechStack): Promise<number> {
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
export async function historyItems(stack: SpeechStack): Promise<HistoryItem[]> {
  const res = await fetch(`${stack.url}/v1/history?pageSize=1000`, { headers: { 'xi-api-key': stack.apiKey } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { history: HistoryItem[] }).history;
}
