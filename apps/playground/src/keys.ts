import { jsonBody, type Api } from './api';
import { busy, byId, el, say, submitButton } from './dom';

interface ApiKey {
  key_id: string;
  name: string;
  scopes: string[];
  hint: string;
  created_at: string;
}
interface KeyPage {
  api_keys: ApiKey[];
  has_more: boolean;
  last_key_id: string | null;
}

/** The API keys tab: create (the secret shown once, with a curl line to try it), list and revoke. */
export function keysPanel(api: Api) {
  const form = byId('key-form', HTMLFormElement);
  const rows = byId('key-rows', HTMLTableSectionElement);
  const more = byId('key-more', HTMLButtonElement);
  const status = byId('key-status');
  const secret = byId('key-secret', HTMLDivElement);
  const value = byId('key-value', HTMLInputElement);
  const curl = byId('key-curl', HTMLPreElement);
  let after: string | null = null;

  const row = (key: ApiKey) => {
    const revoke = el('button', { type: 'button', 'aria-label': `Revoke ${key.name}` }, 'Revoke');
    revoke.addEventListener(
      'click',
      () =>
        void busy(revoke, status, async () => {
          await api.json(`/v1/api-keys/${encodeURIComponent(key.key_id)}`, { method: 'DELETE' });
          await load(true);
          say(status, `Revoked ${key.name}: it stops working at once.`);
        }),
    );
    return el(
      'tr',
      { 'data-key-id': key.key_id },
      el('td', {}, key.name),
      el('td', {}, key.scopes.join(' ')),
      el('td', {}, el('code', {}, `${key.hint}…`)),
      el('td', {}, new Date(key.created_at).toLocaleString()),
      el('td', {}, revoke),
    );
  };

  const load = (reset: boolean) =>
    busy(more, status, async () => {
      if (reset) after = null;
      const query = new URLSearchParams({ page_size: '20', ...(after ? { start_after_key_id: after } : {}) });
      const page = await api.json<KeyPage>(`/v1/api-keys?${query}`);
      if (reset) rows.replaceChildren(...page.api_keys.map(row));
      else rows.append(...page.api_keys.map(row));
      after = page.last_key_id;
      more.hidden = !page.has_more;
    });

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void busy(submitButton(form), status, async () => {
      const data = new FormData(form);
      const scopes = data.getAll('scope').map(String);
      if (scopes.length === 0) throw new Error('Choose what the key may do.');
      const created = await api.json<ApiKey & { key: string }>(
        '/v1/api-keys',
        jsonBody({ name: data.get('name'), scopes }),
      );
      value.value = created.key;
      curl.textContent = `curl ${location.origin}/v1/user -H "xi-api-key: ${created.key}"`;
      secret.hidden = false;
      value.focus();
      value.select();
      form.reset();
      await load(true);
      say(status, `Created ${created.name}.`);
    });
  });
  byId('key-copy', HTMLButtonElement).addEventListener(
    'click',
    () =>
      void navigator.clipboard.writeText(value.value).then(
        () => say(status, 'Copied.'),
        () => say(status, 'Copy it from the field: the browser did not allow the clipboard.', true),
      ),
  );
  more.addEventListener('click', () => void load(false));

  return { reload: () => load(true) };
}
