import { jsonBody, type Api } from './api';
import { busy, byId, el, say, submitButton } from './dom';

interface Dictionary {
  id: string;
  name: string;
  latest_version_rules_num: number;
}
interface DictionaryPage {
  pronunciation_dictionaries: Dictionary[];
  next_cursor: string | null;
  has_more: boolean;
}
export interface DictionaryLocator {
  pronunciation_dictionary_id: string;
}

const rulesCount = (n: number) => `${n} ${n === 1 ? 'rule' : 'rules'}`;

/** The name of the dictionary "Add rule" makes when none is picked. */
const NEW_DICTIONARY = 'My pronunciations';

/**
 * The Speak tab's pronunciation dictionary: a picker of the account's dictionaries (all pages of
 * `GET /v1/pronunciation-dictionaries`) and a form adding an alias rule (word → what to say) to the
 * picked one, or to a new one. `locators()` is what a synthesis request sends: the picked dictionary at
 * its latest version (no `version_id`), so a rule just added applies.
 */
export function dictionaryPicker(api: Api) {
  const select = byId('dictionary', HTMLSelectElement);
  const form = byId('rule-form', HTMLFormElement);
  const word = byId('rule-word', HTMLInputElement);
  const alias = byId('rule-alias', HTMLInputElement);
  const status = byId('rule-status');

  const all = async (): Promise<Dictionary[]> => {
    const found: Dictionary[] = [];
    let cursor: string | null = null;
    do {
      const query = new URLSearchParams({ page_size: '100', ...(cursor ? { cursor } : {}) });
      const page: DictionaryPage = await api.json<DictionaryPage>(`/v1/pronunciation-dictionaries?${query}`);
      found.push(...page.pronunciation_dictionaries);
      cursor = page.has_more ? page.next_cursor : null;
    } while (cursor);
    return found;
  };

  const reload = async (pick?: string) => {
    const keep = pick ?? select.value;
    const dictionaries = await all();
    select.replaceChildren(
      el('option', { value: '' }, 'None'),
      ...dictionaries.map((d) =>
        el('option', { value: d.id }, `${d.name} (${rulesCount(d.latest_version_rules_num)})`),
      ),
    );
    if (dictionaries.some((d) => d.id === keep)) select.value = keep;
  };

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void busy(submitButton(form), status, async () => {
      const rule = { type: 'alias', string_to_replace: word.value, alias: alias.value };
      const picked = select.value;
      const id = picked
        ? (
            await api.json<{ id: string }>(
              `/v1/pronunciation-dictionaries/${encodeURIComponent(picked)}/add-rules`,
              jsonBody({ rules: [rule] }),
            )
          ).id
        : (
            await api.json<{ id: string }>(
              '/v1/pronunciation-dictionaries/add-from-rules',
              jsonBody({ name: NEW_DICTIONARY, rules: [rule] }),
            )
          ).id;
      await reload(id);
      say(status, `“${word.value}” is now said as “${alias.value}”.`);
      form.reset();
    });
  });

  return {
    reload: () => reload(),
    locators: (): DictionaryLocator[] => (select.value ? [{ pronunciation_dictionary_id: select.value }] : []),
  };
}
