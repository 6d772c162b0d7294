import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { PASSWORD, type Client } from './http.ts';

/**
 * Debian's headless shell of Chromium (`apt-get install -y chromium-headless-shell`; `.ci/run` installs it), else
 * its full Chromium (`chromium`), or CHROMIUM_PATH. The shell is the old headless mode, without the browser's
 * interface: the same pages and tests took about a quarter less of Chromium's CPU (39 -> 30 CPU-s for
 * web-catalog and web-dashboard; Playwright's own headless default is this shell too).
 */
export const CHROMIUM =
  process.env.CHROMIUM_PATH ??
  ['/usr/bin/chromium-headless-shell', '/usr/bin/chromium'].find((path) => existsSync(path)) ??
  '/usr/bin/chromium-headless-shell';
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
 * Keeps a full-page picture of the screen as it is now, `<name>.png`, in the folder SCREENSHOTS names (for a person
 * to look at: `SCREENSHOTS=/tmp/shots npx vitest run test/e2e/web-people.test.ts`). Without it only `always` (a
 * screen found wider than its window) keeps one, in the system's temporary folder, to show what went wrong.
 */
export async function keepScreenshot(page: Page, name: string, always = false): Promise<void> {
  const folder = process.env.SCREENSHOTS || (always ? tmpdir() : undefined);
  if (folder) await page.screenshot({ path: join(folder, `${name.replace(/\W+/g, '-')}.png`), fullPage: true });
}

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
  // With where it was thrown (the page's URL and the first frames), so that a rare one can be found.
  page.on('pageerror', (e) =>
    problems.push(`uncaught: ${String(e)} on ${page.url()}\n${e.stack?.split('\n').slice(1, 5).join('\n') ?? ''}`),
  );
  return problems;
}

/**
 * Chromium and one page of 1280×800 in UTC for the test file, what goes wrong on it collected
 * (`pageProblems`): opened before its tests (handed to `opened`), closed after them.
 */
export function useChromiumPage(opened: (p: { page: Page; problems: string[] }) => void) {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, timezoneId: 'UTC' });
    const page = await context.newPage();
    opened({ page, problems: await pageProblems(page) });
  });
  afterAll(async () => {
    await browser?.close();
  });
}

/**
 * Waits until no part of the screen says it is loading (the dashboard's `Loaded` placeholders: role=status,
 * "Loading …"). A screen's parts arrive in any order and each one moves what is below it (a placeholder line
 * becomes a form, a boxed message), so a click aimed before then can land beside its target.
 */
export const settled = (page: Page) =>
  expect
    .poll(() =>
      page
        .getByRole('status')
        .filter({ hasText: /^Loading\b/ })
        .count(),
    )
    .toBe(0); // within the run's poll timeout (vitest.config.ts)

/** Registers an account on the dashboard's form (password `PASSWORD`), leaving the page on its projects. */
export async function registerInBrowser(page: Page, baseUrl: string, who: { name: string; email: string }) {
  await page.goto(`${baseUrl}/register`);
  await page.getByLabel('Name').fill(who.name);
  await page.getByLabel('Email').fill(who.email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.waitForURL(`${baseUrl}/p`);
}

/**
 * Creates a project and its first environment on the dashboard's forms, from the projects screen,
 * leaving the page on the environment's services; answers their ids, read from its address.
 */
async function projectInBrowser(page: Page, project: string, environment: string) {
  await page.getByLabel('Project name').fill(project);
  await page.getByRole('button', { name: 'Create project' }).click();
  await expect
    .poll(() => page.getByRole('heading', { level: 1 }).textContent(), { timeout: 20_000 })
    .toBe(`Environments of ${project}`);
  await page.getByLabel('Environment name').fill(environment);
  await page.getByRole('button', { name: 'Create environment' }).click();
  await page.waitForURL(/\/p\/[\w-]+\/e\/[\w-]+\/services$/);
  const [, projectId, envId] = /\/p\/([\w-]+)\/e\/([\w-]+)\//.exec(page.url())!;
  return { projectId, envId };
}

/** Registers on the dashboard and creates a project with its first environment there; answers their ids and an API token. */
export async function signUpWithProject(
  page: Page,
  api: Client,
  baseUrl: string,
  who: { name: string; email: string },
  names = { project: 'Plant', environment: 'production' },
) {
  await registerInBrowser(page, baseUrl, who);
  const ids = await projectInBrowser(page, names.project, names.environment);
  const token = (await api.post('/auth/login', { email: who.email, password: PASSWORD })).body.access_token as string;
  return { ...ids, token };
}
