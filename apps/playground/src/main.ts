import { createApi, jsonBody, errorFrom } from './api';
import { dictionaryPicker } from './dictionaries';
import { busy, byId, say, submitButton } from './dom';
import { historyPanel } from './history';
import { keysPanel } from './keys';
import { livePanel } from './live';
import { WAITING_FOR_PLAN_LIMIT } from './messages';
import { createPacer } from './pacing';
import { createSignIn, SignInRefused, type Session, type SignIn } from './session';
import { speakPanel } from './speak';
import { tabs } from './tabs';
import { voicesPanel } from './voices';

/**
 * The playground: signs a person in (OAuth 2.0 authorization code flow with PKCE, OpenID Connect) and
 * lets them try the speech API, API keys and the content service's GraphQL API with live events.
 */
interface PageConfig {
  issuer: string;
  client_id: string;
}

const notice = byId('notice');

async function main(): Promise<void> {
  const config = (await (await fetch('/playground/config.json')).json()) as PageConfig;
  // Sign-in state is per origin: on another name for this server, go to the one the client is registered with.
  if (new URL(config.issuer).origin !== location.origin) {
    location.replace(`${config.issuer}/`);
    return;
  }
  const signIn = await createSignIn(config.issuer, config.client_id);
  const session = await signIn.resume().catch((err: unknown) => {
    // Errors of the authorization response are already worded (session.ts); others say what failed.
    const message = err instanceof Error ? err.message : String(err);
    say(notice, err instanceof SignInRefused ? message : `Sign-in failed: ${message}`, true);
    return null;
  });
  if (session) showApp(session);
  else showSignedOut(signIn);
}

function showSignedOut(signIn: SignIn): void {
  byId('signed-out').hidden = false;
  byId('sign-in', HTMLButtonElement).addEventListener('click', () => void signIn.begin());
  const form = byId('register-form', HTMLFormElement);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void busy(submitButton(form), notice, async () => {
      const data = Object.fromEntries(new FormData(form));
      // Content's public registration (REST), then the same sign-in as everyone else.
      const res = await fetch('/api/v1/auth/register', jsonBody(data));
      if (!res.ok) throw errorFrom(res.status, await res.json().catch(() => null));
      await signIn.begin(String(data.email));
    });
  });
}

function showApp(session: Session): void {
  const pacing = byId('pacing');
  const pacer = createPacer({ onWaiting: (waiting) => say(pacing, waiting ? WAITING_FOR_PLAN_LIMIT : '') });
  const api = createApi(() => session.accessToken(), pacer);
  byId('app').hidden = false;
  byId('account').hidden = false;
  byId('account-name').textContent = session.person.name ?? session.person.email ?? session.person.sub;
  byId('sign-out', HTMLButtonElement).addEventListener('click', () => void session.signOut());

  const quota = byId('quota');
  const showQuota = () =>
    api
      .json<{ subscription: { character_count: number; character_limit: number; tier: string } }>('/v1/user')
      .then(
        ({ subscription: s }) =>
          (quota.textContent = `${s.tier} plan · ${s.character_count.toLocaleString()} of ${s.character_limit.toLocaleString()} characters used`),
      )
      .catch(() => (quota.textContent = ''));

  const history = historyPanel(api);
  const dictionaries = dictionaryPicker(api);
  const speak = speakPanel(api, dictionaries.locators, () => void showQuota());
  const voices = voicesPanel(api, (list, select) => speak.showVoices(list, select));
  const keys = keysPanel(api);
  const live = livePanel(api, () => session.accessToken());
  const loaders: Record<string, () => unknown> = {
    // A dictionary made elsewhere (the API, another tab) is offered when the person comes back to Speak.
    'panel-speak': () => busy(null, byId('rule-status'), dictionaries.reload),
    'panel-history': () => history.reload(),
    'panel-keys': () => keys.reload(),
    'panel-voices': () => voices.reload(),
  };
  tabs(byId('app').querySelector('[role=tablist]')!, (panel) => void loaders[panel]?.());

  const status = byId('speak-status');
  void busy(null, status, async () => {
    await Promise.all([speak.loadModels(), voices.reload(), showQuota(), dictionaries.reload()]);
  });
  // Subscribed from the start, so events of the person's first post are already being watched.
  live.connect();
}

main().catch((err: unknown) =>
  say(notice, `The playground could not start: ${err instanceof Error ? err.message : String(err)}`, true),
);
