import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Browser, BrowserContext, Page, Request } from 'playwright-core';
import { eventually, uniqueName } from '@platform/testing';
import { startPlatform, type Platform } from '../gateway/platform';
import { espeakWav, REFERENCE_TEXT } from '../voices/audio';
import { graphiql } from '../reference/graphiql';
import { accessibilityProblems } from './accessibility';
import { launchChromium } from './chromium';

/**
 * The playground page (gateway `/`) in Debian's Chromium, against the real platform: auth, content and
 * the gateway as processes, a synthesis worker on a queue of this file's own. A new person creates an
 * account on the page, signs in (authorization code flow with PKCE as the public `playground` client),
 * hears speech stream, replays it from history, clones a voice from a file and from the microphone
 * (Chromium's fake capture device playing a recording), makes an API key that works with curl, and
 * watches post and comment events arrive over graphql-ws.
 *
 * Screenshots of each screen go to PLAYGROUND_SCREENSHOTS (docs/images when the docs are refreshed),
 * else to .stack/screenshots.
 */
jest.setTimeout(180_000);

const WAIT = { timeout: 90_000 };
const shots = path.resolve(__dirname, '../..', process.env.PLAYGROUND_SCREENSHOTS ?? '.stack/screenshots');
const micFile = path.resolve(__dirname, '../../.stack', `${uniqueName('mic')}.wav`);
const LONG_TEXT = [
  'The playground streams speech as it is made.',
  'Each sentence is synthesised while the one before it travels to the browser.',
  'So the first words play long before the last ones exist.',
  'That is what streaming means here.',
  'This is the fifth sentence, and the sixth follows it.',
  'And this is the last one.',
].join(' ');

let platform: Platform;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const person = {
  name: 'Ada Playground',
  email: `${uniqueName('ada')}@example.com`,
  password: 'correct horse battery staple',
};

/**
 * A call to the speech API as the signed-in person (the page's access token), outside the page: it
 * shares the account's budget with the page, so a 429 is waited out as its Retry-After says.
 */
async function asAccount(path: string, body: unknown): Promise<unknown> {
  const token = await page.evaluate(
    () => (JSON.parse(sessionStorage.getItem('playground.tokens')!) as { accessToken: string }).accessToken,
  );
  for (let attempt = 1; ; attempt += 1) {
    const res = await fetch(`${platform.publicUrl}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (res.status === 429 && attempt < 3) {
      await new Promise((resolve) => setTimeout(resolve, Number(res.headers.get('retry-after') ?? 1) * 1000));
      continue;
    }
    expect(res.status).toBe(200);
    return res.json();
  }
}

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: path.join(shots, `playground-${name}.png`), fullPage: true });
}

/** Resolves when the audio element next fires `playing` (listener installed before the action). */
async function armPlaying(selector: string): Promise<void> {
  await page.evaluate((sel) => {
    const audio = document.querySelector<HTMLAudioElement>(sel)!;
    audio.dataset.played = 'no';
    audio.addEventListener('playing', () => (audio.dataset.played = 'yes'), { once: true });
  }, selector);
}

async function playedWithDuration(selector: string): Promise<number> {
  await page.waitForFunction(
    (sel) => document.querySelector<HTMLAudioElement>(sel)?.dataset.played === 'yes',
    selector,
    WAIT,
  );
  const handle = await page.waitForFunction(
    (sel) => {
      const d = document.querySelector<HTMLAudioElement>(sel)!.duration;
      return Number.isFinite(d) && d > 0 ? d : false;
    },
    selector,
    WAIT,
  );
  return (await handle.jsonValue()) as number;
}

async function speakAndHear(text: string): Promise<{ duration: number; chunks: number; streamed: string }> {
  await page.getByRole('tab', { name: 'Speak' }).click();
  const panel = page.locator('#panel-speak');
  await panel.getByLabel('Text').fill(text);
  await armPlaying('#speak-audio');
  await panel.getByRole('button', { name: 'Speak' }).click();
  const duration = await playedWithDuration('#speak-audio');
  await page.locator('#speak-status', { hasText: 'First audio after' }).waitFor(WAIT);
  const data = await page.locator('#speak-audio').evaluate((a: HTMLAudioElement) => ({ ...a.dataset }));
  return { duration, chunks: Number(data.chunks), streamed: String(data.streamed) };
}

/**
 * Repeats `act` until an event line containing `text(attempt)` is listed: a subscription starts on the
 * server a moment after the client sends it, so the first mutation may precede it; a later one cannot.
 */
async function untilEvent(act: (attempt: number) => Promise<string>): Promise<string> {
  for (let attempt = 1; ; attempt += 1) {
    const expected = await act(attempt);
    const line = page.locator('#event-list li', { hasText: expected });
    const seen = await line.waitFor({ timeout: 15_000 }).then(
      () => true,
      () => false,
    );
    if (seen) return (await line.first().textContent()) ?? '';
    if (attempt === 5) throw new Error(`no live event containing "${expected}" after ${attempt} mutations`);
  }
}

beforeAll(async () => {
  fs.mkdirSync(shots, { recursive: true });
  // The microphone: Chromium's fake capture device plays this recording of speech, over and over.
  fs.writeFileSync(micFile, espeakWav(REFERENCE_TEXT, 'en+f3', 60));
  platform = await startPlatform({
    speechWorkers: {},
    // The page's account on the free plan's own limits (the page paces itself to them, pacing.ts); the
    // test's requests without credentials (registration, revoked keys) are not what is tested here.
    gatewayEnv: {
      PLAN_LIMITS_JSON: JSON.stringify({
        free: { rps: 3, concurrency: 2 },
        anonymous: { rps: 1000, concurrency: 100 },
      }),
    },
  });
  browser = await launchChromium([
    '--use-fake-ui-for-media-stream',
    '--use-fake-device-for-media-stream',
    `--use-file-for-fake-audio-capture=${micFile}`,
  ]);
  context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
  page = await context.newPage();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await platform?.stop();
  fs.rmSync(micFile, { force: true });
}, 60_000);

describe('playground in Chromium', () => {
  it('serves the page with its own assets under a strict Content-Security-Policy', async () => {
    const res = await fetch(`${platform.publicUrl}/`);
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("default-src 'none'");
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    const html = await res.text();
    // Every script and stylesheet is ours: no CDN, no inline script.
    const sources = [...html.matchAll(/<(?:script|link)\b[^>]*?\b(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(sources.filter((s) => s.startsWith('/assets/'))).toHaveLength(2);
    for (const source of sources) expect(source.startsWith('/assets/') || source.startsWith('data:')).toBe(true);
    const script = sources.find((s) => s.endsWith('.js'))!;
    const asset = await fetch(`${platform.publicUrl}${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toContain('immutable');
    expect(await fetch(`${platform.publicUrl}/playground/config.json`).then((r) => r.json())).toEqual({
      issuer: platform.publicUrl,
      client_id: 'playground',
    });
  });

  it('a new person creates an account on the page and signs in with the code flow and PKCE', async () => {
    await page.goto(`${platform.publicUrl}/`);
    await page.getByRole('button', { name: 'Sign in' }).waitFor(WAIT);
    // Signed out: nothing offers to sign out (the `hidden` account bar stays hidden).
    expect(await page.getByRole('button', { name: 'Sign out' }).isVisible()).toBe(false);
    expect(await page.locator('#account').isVisible()).toBe(false);
    expect(await accessibilityProblems(page)).toEqual([]);
    await shot('signed-out');
    await page.getByText('No account yet? Create one').click();
    const form = page.locator('#register-form');
    await form.getByLabel('Name').fill(person.name);
    await form.getByLabel('Email').fill(person.email);
    await form.getByLabel('Password').fill(person.password);
    await form.getByRole('button', { name: 'Create account and sign in' }).click();
    // The authorization server's own sign-in page, then its consent page.
    await page.waitForURL((url) => url.pathname.startsWith('/authorize') || url.pathname.startsWith('/login'), WAIT);
    // The playground sent the new email as login_hint: the sign-in page starts with it.
    await page.getByLabel('Password').waitFor(WAIT);
    expect(await page.getByLabel('Email').inputValue()).toBe(person.email);
    await page.getByLabel('Password').fill(person.password);
    await shot('sign-in');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.getByRole('tab', { name: 'Speak' }).waitFor(WAIT);
    expect(new URL(page.url()).search).toBe(''); // the code left the address bar
    await page.locator('#account-name', { hasText: person.name }).waitFor(WAIT);
    await page.locator('#quota', { hasText: 'free plan' }).waitFor(WAIT);
    const stored = await page.evaluate(
      () =>
        JSON.parse(sessionStorage.getItem('playground.tokens') ?? 'null') as {
          accessToken: string;
          refreshToken?: string;
        } | null,
    );
    expect(stored?.accessToken.split('.')).toHaveLength(3);
    expect(stored?.refreshToken).toMatch(/^rt_/);
  });

  it('a second account with the same email is refused with a text a person understands', async () => {
    const other = await browser.newContext();
    const fresh = await other.newPage();
    await fresh.goto(`${platform.publicUrl}/`);
    await fresh.getByText('No account yet? Create one').click();
    const form = fresh.locator('#register-form');
    await form.getByLabel('Name').fill('Ada Again');
    await form.getByLabel('Email').fill(person.email);
    await form.getByLabel('Password').fill(person.password);
    await form.getByRole('button', { name: 'Create account and sign in' }).click();
    await fresh.locator('#notice', { hasText: 'This email is already used.' }).waitFor(WAIT);
    expect(await fresh.locator('#notice').innerText()).not.toContain('HTTP');
    await other.close();
  });

  it('pressing Deny on the consent page says the person declined', async () => {
    const other = await browser.newContext();
    const fresh = await other.newPage();
    await fresh.goto(`${platform.publicUrl}/`);
    await fresh.getByRole('button', { name: 'Sign in' }).click();
    await fresh.getByLabel('Email').fill(person.email);
    await fresh.getByLabel('Password').fill(person.password);
    await fresh.getByRole('button', { name: 'Sign in' }).click();
    await fresh.getByRole('button', { name: 'Deny' }).click();
    await fresh.locator('#notice', { hasText: 'You declined' }).waitFor(WAIT);
    expect(await fresh.locator('#notice').innerText()).not.toContain('authorization response');
    // Still signed out, and offered to sign in again.
    expect(await fresh.getByRole('button', { name: 'Sign in' }).isVisible()).toBe(true);
    expect(await fresh.getByRole('button', { name: 'Sign out' }).isVisible()).toBe(false);
    await other.close();
  });

  it('speech streams into the audio element, which plays with a non-zero duration', async () => {
    await page
      .locator('#voice option')
      .first()
      .waitFor({ state: 'attached', ...WAIT });
    const heard = await speakAndHear(LONG_TEXT);
    expect(heard.duration).toBeGreaterThan(1);
    // Fed to Media Source Extensions piece by piece, playback started with the first piece.
    expect(heard.streamed).toBe('true');
    expect(heard.chunks).toBeGreaterThan(1);
  });

  it('history lists the generation and plays it again', async () => {
    await page.getByRole('tab', { name: 'History' }).click();
    const item = page.locator('#history-list li', { hasText: 'The playground streams speech' });
    // The tab loads the list once; the generation's history record is written as its stream ends and may
    // land after that load on a busy machine. Press Refresh, as a person would, until it is listed.
    await eventually(
      async () => {
        if ((await item.count()) > 0) return true;
        await page.locator('#history-refresh').click();
        return false;
      },
      WAIT.timeout,
      500,
    );
    // The row says which model spoke it (the one the Speak tab used).
    expect(await item.innerText()).toContain(await page.locator('#model').inputValue());
    await armPlaying('#history-audio');
    await item.getByRole('button', { name: /^Play/ }).click();
    expect(await playedWithDuration('#history-audio')).toBeGreaterThan(1);
    await shot('history');
  });

  it('speaks with a pronunciation dictionary picked on the Speak screen, and adds a rule to it', async () => {
    const word = 'Zyx';
    const created = (await asAccount('/v1/pronunciation-dictionaries/add-from-rules', {
      name: 'Playground words',
      rules: [{ type: 'alias', string_to_replace: word, alias: 'a word said slowly, at length, and with great care' }],
    })) as { id: string };
    const sent: Record<string, unknown>[] = [];
    const onRequest = (request: Request) => {
      if (request.method() === 'POST' && new URL(request.url()).pathname.endsWith('/stream'))
        sent.push(request.postDataJSON() as Record<string, unknown>);
    };
    page.on('request', onRequest);
    const text = `Say ${word} now.`;
    const plain = await speakAndHear(text);
    // Requests made before the pick, then after it (the page retries a request its plan refused once, so
    // a phase may hold the same request twice).
    const beforePick = sent.length;
    // Coming back to Speak lists dictionaries made elsewhere (here: through the API).
    const picker = page.locator('#panel-speak').getByLabel('Pronunciation dictionary');
    await picker.locator(`option[value="${created.id}"]`).waitFor({ state: 'attached', ...WAIT });
    await picker.selectOption(created.id);
    const spelled = await speakAndHear(text);
    page.off('request', onRequest);
    const [withoutPick, withPick] = [sent.slice(0, beforePick), sent.slice(beforePick)];
    expect(withoutPick.length).toBeGreaterThan(0);
    expect(withPick.length).toBeGreaterThan(0);
    for (const body of withoutPick) expect(body).toEqual({ text, model_id: expect.any(String) });
    for (const body of withPick)
      expect(body).toMatchObject({
        text,
        pronunciation_dictionary_locators: [{ pronunciation_dictionary_id: created.id }],
      });
    // The alias is said instead of the word: a much longer utterance.
    expect(spelled.duration).toBeGreaterThan(plain.duration + 1);
    await shot('speak');

    // "Add a pronunciation" adds an alias rule to the picked dictionary (a new version of it).
    await page.getByText('Add a pronunciation').click();
    const rule = page.locator('#rule-form');
    await rule.getByLabel('Word', { exact: true }).fill('Ada');
    await rule.getByLabel('Say it as').fill('Countess Lovelace');
    await rule.getByRole('button', { name: 'Add rule' }).click();
    await page.locator('#rule-status', { hasText: '“Ada” is now said as “Countess Lovelace”.' }).waitFor(WAIT);
    expect(await picker.locator('option:checked').innerText()).toBe('Playground words (2 rules)');
    expect(await accessibilityProblems(page)).toEqual([]);
  });

  it("a burst of the page's requests is paced to the plan: no 429 reaches the person", async () => {
    await page.getByRole('tab', { name: 'History' }).click();
    await page.locator('#history-list li button').first().waitFor(WAIT);
    const finished: number[] = [];
    const onFinished = (request: Request) => {
      if (new URL(request.url()).pathname.startsWith('/v1/history')) finished.push(Date.now());
    };
    page.on('requestfinished', onFinished);
    page.on('requestfailed', onFinished);
    await armPlaying('#history-audio');
    // Eight list loads and a replay at once: beyond the free plan's 3 per second and 2 at once.
    await page.evaluate(() => {
      const refresh = document.querySelector<HTMLButtonElement>('#history-refresh')!;
      for (let i = 0; i < 8; i += 1) refresh.click();
      document.querySelector<HTMLButtonElement>('#history-list li button')!.click();
    });
    await eventually(async () => finished.length >= 9, WAIT.timeout, 200);
    page.off('requestfinished', onFinished);
    page.off('requestfailed', onFinished);
    expect(await playedWithDuration('#history-audio')).toBeGreaterThan(1);
    const status = page.locator('#history-status');
    expect(await status.getAttribute('class')).not.toContain('error');
    expect(await status.innerText()).not.toMatch(/limit|too many/i);
    expect(await page.locator('#notice').innerText()).toBe('');
    expect(await page.locator('#history-list li').count()).toBeGreaterThan(0);
    // Spread over more than a second (nine at 3 per second start over 2.2 s): the page held them back rather than the gateway refusing them.
    expect(finished.at(-1)! - finished[0]!).toBeGreaterThan(1000);
  });

  it('clones a voice from a file and a microphone recording, and the clone speaks', async () => {
    await page.getByRole('tab', { name: 'Voices' }).click();
    const panel = page.locator('#panel-voices');
    await panel.getByLabel('Name').fill('My playground voice');
    await panel
      .getByLabel(/^Recordings \(/)
      .setInputFiles({ name: 'reference.wav', mimeType: 'audio/wav', buffer: espeakWav(REFERENCE_TEXT, 'en+m3', 30) });
    await page.getByRole('button', { name: 'Record from microphone' }).click();
    await page.locator('#record-status', { hasText: 'Recording…' }).waitFor(WAIT);
    // Three seconds of the fake microphone: how long the person speaks, not a deadline for anything.
    await page.waitForTimeout(3_000);
    await page.getByRole('button', { name: 'Stop recording' }).click();
    await page.locator('#clone-samples li', { hasText: 'recording-1.wav' }).waitFor(WAIT);
    expect(await page.locator('#clone-samples li').allTextContents()).toEqual(['reference.wav', 'recording-1.wav']);
    await shot('voices');
    await page.getByRole('button', { name: 'Create voice' }).click();
    await page.locator('#clone-status', { hasText: 'Created “My playground voice”' }).waitFor(WAIT);
    const cloneId = await page
      .locator('#voice-list li', { hasText: 'My playground voice' })
      .getAttribute('data-voice-id');
    expect(cloneId).toMatch(/^[A-Za-z0-9]{20}$/);
    expect(await page.locator('#voice').inputValue()).toBe(cloneId);
    const heard = await speakAndHear('Hello, this is my cloned voice speaking.');
    expect(heard.duration).toBeGreaterThan(0.5);
  });

  it('creates an API key shown once, which works with curl until it is revoked', async () => {
    await page.getByRole('tab', { name: 'API keys' }).click();
    const panel = page.locator('#panel-keys');
    await panel.getByLabel('Name').fill('laptop');
    await panel.getByRole('button', { name: 'Create key' }).click();
    const key = page.getByLabel('New key');
    await page.locator('#key-secret').waitFor({ state: 'visible', ...WAIT });
    const secret = await key.inputValue();
    expect(secret).toMatch(/^sk_[0-9a-f]{64}$/);
    await page.locator('#key-rows tr', { hasText: 'laptop' }).waitFor(WAIT);
    await shot('keys');
    // The line the page shows, run as a person would paste it.
    const line = (await page.locator('#key-curl').textContent())!;
    expect(line).toContain(secret);
    // Pasted right after the page's own requests, it shares the account's budget with them (3 per second,
    // 2 at once): a 429 is waited out as its Retry-After says, as a person trying again would.
    const curl = async (extra: string): Promise<string[]> => {
      for (let attempt = 1; ; attempt += 1) {
        const { stdout } = await promisify(execFile)('sh', [
          '-c',
          `${line} -s -w '\\n%{http_code} %header{retry-after}' ${extra}`,
        ]);
        const lines = stdout.split('\n');
        const [status, retryAfter] = lines.at(-1)!.split(' ');
        if (status !== '429' || attempt === 3) return [...lines.slice(0, -1), status!];
        await new Promise((resolve) => setTimeout(resolve, Number(retryAfter || 1) * 1000));
      }
    };
    const ok = await curl('');
    expect(ok.at(-1)).toBe('200');
    expect(JSON.parse(ok.slice(0, -1).join('\n'))).toMatchObject({ subscription: { tier: 'free' } });
    await page.getByRole('button', { name: 'Revoke laptop' }).click();
    await page.locator('#key-status', { hasText: 'Revoked laptop' }).waitFor(WAIT);
    expect((await curl('-o /dev/null')).join('')).toBe('401');
    expect(await page.locator('#key-rows tr').count()).toBe(0);
  });

  it('publishes a post and a comment, and their events arrive live over graphql-ws', async () => {
    await page.getByRole('tab', { name: 'Live posts' }).click();
    const postLine = await untilEvent(async (attempt) => {
      const title = `Hello live ${attempt} ${uniqueName('t')}`;
      const form = page.locator('#post-form');
      await form.getByLabel('Title').fill(title);
      await form.getByLabel('Text').fill('Written in the playground.');
      await form.getByRole('button', { name: 'Publish' }).click();
      await page.locator('#post-list li', { hasText: title }).waitFor(WAIT);
      return `post created: “${title}”`;
    });
    expect(postLine).toContain(`by ${person.name}`);
    const post = page.locator('#post-list li').first();
    const commentLine = await untilEvent(async (attempt) => {
      const text = `First! (${attempt})`;
      await post.getByLabel('Comment').fill(text);
      await post.getByRole('button', { name: 'Add comment' }).click();
      return `by ${person.name}: ${text}`;
    });
    expect(commentLine).toContain('comment on “Hello live');
    await shot('live');
  });

  it('is usable by keyboard and labelled for assistive technology', async () => {
    await page.getByRole('tab', { name: 'Speak' }).focus();
    await page.keyboard.press('ArrowRight');
    expect(await page.getByRole('tab', { name: 'History' }).getAttribute('aria-selected')).toBe('true');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('tab-history');
    await page.keyboard.press('End');
    expect(await page.getByRole('tab', { name: 'Live posts' }).getAttribute('aria-selected')).toBe('true');
    expect(await accessibilityProblems(page)).toEqual([]);
  });

  it("GraphiQL at /graphql, opened from the playground's link, sends its sign-in", async () => {
    await page.getByRole('link', { name: 'GraphQL explorer' }).click();
    try {
      await page.waitForURL((url) => url.pathname === '/graphql', WAIT);
      await page.locator('.graphiql-container').waitFor(WAIT);
      // `me` needs a signed-in caller: it answers only with the playground's token.
      expect(await graphiql(page, WAIT).result('{ me { name } }')).toEqual({ data: { me: { name: person.name } } });
    } finally {
      // Back on the playground whatever happened here: the tests after this one start from it.
      await page.goto(`${platform.publicUrl}/`);
    }
    await page.locator('#account-name', { hasText: person.name }).waitFor(WAIT);
  });

  it('fits a phone screen without sideways scrolling', async () => {
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const small = await phone.newPage();
    // The same tab's session would not carry over (sessionStorage is per tab): the signed-out page.
    await small.goto(`${platform.publicUrl}/`);
    await small.getByRole('button', { name: 'Sign in' }).waitFor(WAIT);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole('tab', { name: 'API keys' }).click();
    for (const view of [small, page]) {
      expect(await view.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    }
    await page.getByRole('tab', { name: 'Speak' }).click();
    await shot('phone');
    await phone.close();
  });

  it('signs out: the grant is revoked and the page is signed out', async () => {
    await page.setViewportSize({ width: 1100, height: 900 });
    const stored = await page.evaluate(
      () => JSON.parse(sessionStorage.getItem('playground.tokens')!) as { refreshToken: string },
    );
    await page.getByRole('button', { name: 'Sign out' }).click();
    // The authorization server asks first (RP-Initiated Logout 1.0), then sends the browser back.
    await page.waitForURL((url) => url.pathname === '/logout', WAIT);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor(WAIT);
    expect(new URL(page.url()).origin).toBe(platform.publicUrl);
    const refreshed = await fetch(`${platform.publicUrl}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: stored.refreshToken,
        client_id: 'playground',
      }),
    });
    expect(refreshed.status).toBe(400);
    expect(await refreshed.json()).toMatchObject({ error: 'invalid_grant' });
  });
});
