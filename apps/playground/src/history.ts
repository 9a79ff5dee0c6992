import type { Api } from './api';
import { busy, byId, el, formatDate, say } from './dom';

interface HistoryItem {
  history_item_id: string;
  voice_name: string;
  /** `null` for a generation recorded without its model. */
  model_id: string | null;
  text: string;
  date_unix: number;
  state: string;
  character_count_change_to: number;
}
interface HistoryPage {
  history: HistoryItem[];
  has_more: boolean;
  last_history_item_id: string | null;
}

const PAGE_SIZE = 20;

/** The History tab: the account's generations, newest first, paged, each playable again. */
export function historyPanel(api: Api) {
  const list = byId('history-list', HTMLUListElement);
  const more = byId('history-more', HTMLButtonElement);
  const audio = byId('history-audio', HTMLAudioElement);
  const status = byId('history-status');
  let after: string | null = null;
  let playing: string | null = null;

  const replay = (item: HistoryItem, button: HTMLButtonElement) =>
    busy(button, status, async () => {
      const res = await api.fetch(`/v1/history/${encodeURIComponent(item.history_item_id)}/audio`);
      if (playing) URL.revokeObjectURL(playing);
      playing = URL.createObjectURL(await res.blob());
      audio.src = playing;
      await audio.play();
      say(status, `Playing “${item.text.slice(0, 60)}”.`);
    });

  const row = (item: HistoryItem) => {
    const play = el('button', { type: 'button' }, 'Play');
    play.setAttribute('aria-label', `Play: ${item.text.slice(0, 80)}`);
    play.addEventListener('click', () => void replay(item, play));
    const charged = item.state === 'complete' ? `${item.character_count_change_to} characters` : item.state;
    return el(
      'li',
      { 'data-history-item-id': item.history_item_id },
      el('p', {}, item.text),
      el(
        'p',
        { class: 'muted' },
        [item.voice_name, item.model_id, formatDate(item.date_unix), charged].filter(Boolean).join(' · '),
      ),
      item.state === 'complete' ? play : null,
    );
  };

  const load = (reset: boolean) =>
    busy(more, status, async () => {
      if (reset) after = null;
      const query = new URLSearchParams({
        page_size: String(PAGE_SIZE),
        ...(after ? { start_after_history_item_id: after } : {}),
      });
      const page = await api.json<HistoryPage>(`/v1/history?${query}`);
      const rows = page.history.map(row);
      if (reset) list.replaceChildren(...rows);
      else list.append(...rows);
      after = page.last_history_item_id;
      more.hidden = !page.has_more;
      say(status, list.children.length === 0 ? 'Nothing yet: speak something first.' : '');
    });

  more.addEventListener('click', () => void load(false));
  byId('history-refresh', HTMLButtonElement).addEventListener('click', () => void load(true));
  return { reload: () => load(true) };
}
