import { chromium, type Browser, type Page } from 'playwright-core';

/** Debian's Chromium (`apt-get install -y chromium`; `.ci/run` installs it), or CHROMIUM_PATH. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Known to work on this kind of machine: no background traffic to Google's hosts, no sandbox as root. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export const launchChromium = (): Promise<Browser> =>
  chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });

/**
 * What went wrong on a page, as a list to assert empty: CSP violations, console errors and uncaught
 * exceptions. Call before the page is opened.
 */
export async function pageProblems(page: Page): Promise<string[]> {
  const problems: string[] = [];
  await page.exposeFunction('__reportViolation', (v: string) => problems.push(`CSP: ${v}`));
  // Browser-side code as a string: this project compiles without the DOM's types.
  await page.addInitScript({
    content:
      "document.addEventListener('securitypolicyviolation', (e) => window.__reportViolation(e.violatedDirective + ' ' + e.blockedURI));",
  });
  page.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`));
  page.on('pageerror', (e) => problems.push(`uncaught: ${String(e)}`));
  return problems;
}
