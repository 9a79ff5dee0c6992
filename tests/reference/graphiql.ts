import type { Page } from 'playwright-core';

/** Driving GraphiQL (the explorer at `/graphql`) in a page: its editors are CodeMirror instances. */
export function graphiql(page: Page, wait: { timeout: number }) {
  const editor = (selector: string) => page.locator(`${selector} .CodeMirror`).first();
  const setEditor = (selector: string, text: string) =>
    editor(selector).evaluate(
      (node, value) => (node as HTMLElement & { CodeMirror: { setValue(v: string): void } }).CodeMirror.setValue(value),
      text,
    );
  /** Puts `query` in the query editor (once it holds exactly that) and runs it. */
  const run = async (query: string) => {
    await setEditor('.graphiql-query-editor', query);
    await page.waitForFunction(
      (expected) =>
        (
          document.querySelector('.graphiql-query-editor .CodeMirror') as
            (Element & { CodeMirror?: { getValue(): string } }) | null
        )?.CodeMirror?.getValue() === expected,
      query,
      wait,
    );
    // Ctrl-Enter in the editor, GraphiQL's run shortcut (its button sits under a tooltip trigger).
    await editor('.graphiql-query-editor').click();
    await page.keyboard.press('Control+Enter');
  };
  const responseText = () =>
    editor('.graphiql-response').evaluate((node) =>
      (node as HTMLElement & { CodeMirror: { getValue(): string } }).CodeMirror.getValue(),
    );
  /** Runs `query` and answers the response once one is shown, parsed. */
  const result = async (query: string): Promise<unknown> => {
    await run(query);
    await page.waitForFunction(
      () => /"(data|errors)"/.test(document.querySelector('.graphiql-response')?.textContent ?? ''),
      undefined,
      wait,
    );
    return JSON.parse(await responseText()) as unknown;
  };
  return { setEditor, run, responseText, result };
}
