import { chromium, type Browser } from 'playwright-core';

/**
 * Debian's Chromium (`/usr/bin/chromium`, installed by the test command) driven by playwright-core,
 * headless, with every background connection off: this machine has no internet, and Chromium would
 * otherwise try Google's services at each start. Playwright gives each launch a fresh profile.
 */
export function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      ...extraArgs,
    ],
    timeout: 30_000,
  });
}
