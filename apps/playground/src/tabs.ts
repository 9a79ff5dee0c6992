/**
 * The WAI-ARIA tabs pattern: one tab in the Tab order, arrow keys (and Home/End) move between tabs,
 * and choosing one shows its panel. `onShow` tells the page which panel opened (to load its data).
 */
export function tabs(list: HTMLElement, onShow: (panelId: string) => void): void {
  const all = [...list.querySelectorAll<HTMLButtonElement>('[role=tab]')];
  const show = (tab: HTMLButtonElement, focus: boolean) => {
    for (const other of all) {
      const selected = other === tab;
      other.setAttribute('aria-selected', String(selected));
      other.tabIndex = selected ? 0 : -1;
      document.getElementById(other.getAttribute('aria-controls') ?? '')?.toggleAttribute('hidden', !selected);
    }
    if (focus) tab.focus();
    onShow(tab.getAttribute('aria-controls') ?? '');
  };
  list.addEventListener('click', (event) => {
    const tab = (event.target as Element).closest<HTMLButtonElement>('[role=tab]');
    if (tab) show(tab, false);
  });
  list.addEventListener('keydown', (event) => {
    const index = all.indexOf(document.activeElement as HTMLButtonElement);
    if (index < 0) return;
    const next = { ArrowRight: index + 1, ArrowLeft: index - 1, Home: 0, End: all.length - 1 }[event.key];
    if (next === undefined) return;
    event.preventDefault();
    show(all[(next + all.length) % all.length]!, true);
  });
}
