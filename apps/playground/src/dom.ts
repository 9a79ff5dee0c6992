/** The element with this id, of this type; a missing one is a bug in index.html, so it throws. */
export function byId<T extends HTMLElement = HTMLElement>(
  id: string,
  type: new () => T = HTMLElement as unknown as new () => T,
): T {
  const found = document.getElementById(id);
  if (!(found instanceof type)) throw new Error(`playground: #${id} is missing or not a ${type.name}`);
  return found;
}

type Child = Node | string | null | undefined | false;

/** An element with text children only (never HTML from data: what the APIs return is shown as text). */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Partial<Record<string, string>> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) if (value !== undefined) node.setAttribute(name, value);
  for (const child of children) if (child) node.append(child);
  return node;
}

/** A status line: the message, marked as an error or not (screen readers hear it through role=status). */
export function say(region: HTMLElement, message: string, error = false): void {
  region.textContent = message;
  region.classList.toggle('error', error);
}

/** Runs a form's async work with its submit button disabled, reporting failures in `region`. */
export function busy(button: HTMLButtonElement | null, region: HTMLElement, work: () => Promise<void>): Promise<void> {
  if (button) button.disabled = true;
  return work()
    .catch((err: unknown) => say(region, err instanceof Error ? err.message : String(err), true))
    .finally(() => {
      if (button) button.disabled = false;
    });
}

export function submitButton(form: HTMLFormElement): HTMLButtonElement | null {
  return form.querySelector<HTMLButtonElement>('button[type=submit]');
}

export function formatDate(unixSeconds: number): string {
  return new Date(unixSeconds * 1000).toLocaleString();
}
