import fs from 'node:fs';
import path from 'node:path';
import { PAGE_CSS } from '../src/pages/page-style';

/** The declarations of the `:root` rules (light and dark) of a stylesheet, in order. */
function tokens(css: string): string[] {
  return [...css.matchAll(/:root\s*\{([^}]*)\}/g)].flatMap((rule) =>
    rule[1]!
      .split(';')
      .map((declaration) => declaration.trim())
      .filter(Boolean),
  );
}

describe("auth's page stylesheet", () => {
  it("has the playground's design tokens, colours and fonts, in both colour schemes", () => {
    const playground = fs.readFileSync(path.join(__dirname, '../../playground/src/styles.css'), 'utf8');
    expect(tokens(playground).length).toBeGreaterThan(16); // both rules were read
    expect(tokens(PAGE_CSS)).toEqual(tokens(playground));
  });

  it('loads nothing from elsewhere (the pages allow only their own origin)', () => {
    expect(PAGE_CSS).not.toMatch(/url\(|@import/);
  });
});
