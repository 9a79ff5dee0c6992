import type { Page } from 'playwright-core';

/**
 * The accessibility checks every page a person sees must pass (the playground's and auth's sign-in,
 * consent, device and sign-out pages): the document's language, one `main` landmark and a level-one
 * heading, every control labelled, and text contrast of WCAG 2.2 AA (SC 1.4.3: 4.5:1, 3:1 for
 * large text) against the background it is drawn on. Returns what fails, `[]` when nothing does.
 */
export function accessibilityProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const problems: string[] = [];
    if (!document.documentElement.lang) problems.push('no lang on <html>');
    const mains = document.querySelectorAll('main, [role=main]').length;
    if (mains !== 1) problems.push(`${mains} main landmarks`);
    if (!document.querySelector('h1')) problems.push('no <h1>');

    const visible = (node: Element) => {
      const box = node.getBoundingClientRect();
      return box.width > 1 && box.height > 1 && getComputedStyle(node).visibility !== 'hidden';
    };
    for (const control of Array.from(document.querySelectorAll<HTMLInputElement>('input, select, textarea, button'))) {
      // Every control, shown or not (a hidden tab's controls are labelled before they are shown).
      if (control.type === 'hidden') continue;
      if (!(control.labels?.length || control.getAttribute('aria-label') || control.textContent?.trim()))
        problems.push(`unlabelled: ${control.outerHTML.slice(0, 120)}`);
    }

    type Rgba = [number, number, number, number];
    const parse = (css: string): Rgba => {
      const [r = 0, g = 0, b = 0, a = 1] = (css.match(/[\d.]+/g) ?? []).map(Number);
      return [r, g, b, css.startsWith('rgba') ? a : 1];
    };
    const luminance = ([r, g, b]: Rgba) => {
      const channel = (c: number) => {
        const s = c / 255;
        return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      };
      return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
    };
    /** The first opaque background at or above the element; the browser's white canvas when there is none. */
    const background = (node: Element | null): Rgba => {
      for (let at = node; at; at = at.parentElement) {
        const colour = parse(getComputedStyle(at).backgroundColor);
        if (colour[3] > 0.5) return colour;
      }
      return [255, 255, 255, 1];
    };
    for (const node of Array.from(document.body.querySelectorAll('*'))) {
      const ownText = Array.from(node.childNodes).some(
        (child) => child.nodeType === Node.TEXT_NODE && child.textContent!.trim(),
      );
      if (!ownText || !visible(node) || (node as HTMLButtonElement).disabled) continue;
      const style = getComputedStyle(node);
      const [light, dark] = [luminance(parse(style.color)), luminance(background(node))].sort((a, b) => b - a);
      const ratio = (light! + 0.05) / (dark! + 0.05);
      const size = parseFloat(style.fontSize);
      const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
      if (ratio < (large ? 3 : 4.5))
        problems.push(`contrast ${ratio.toFixed(2)}:1 of “${node.textContent!.trim().slice(0, 40)}”`);
    }
    return problems;
  });
}
