import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';

/** Debian's chromium package; `.ci/run` installs it when it is missing. Nothing is downloaded. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
];

/** Screenshots of the final states, kept as test artefacts (git-ignored). */
export const ARTEFACTS = path.resolve(__dirname, '..', '..', 'test-results', 'console');

/**
 * A page in a fresh browser context (its own sessionStorage) that records every console error
 * and uncaught page error: the console must run without any.
 */
export interface WatchedPage {
  page: Page;
  context: BrowserContext;
  problems: string[];
  screenshot(name: string): Promise<string>;
  close(): Promise<void>;
}

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`No Chromium at ${CHROMIUM}: install Debian's chromium package (apt-get install -y chromium)`);
  }
  // Playwright launches with a fresh temporary user-data directory of its own.
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });
}

/**
 * @param allowed console messages that the test provokes on purpose (a 400 it asked for, say)
 */
export async function openPage(
  browser: Browser,
  url: string,
  { width = 1366, height = 900, allowed = [] as RegExp[] } = {},
): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport: { width, height } });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' && !allowed.some((pattern) => pattern.test(message.text()))) {
      problems.push(`console error: ${message.text()}`);
    }
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  await page.goto(url);
  return {
    page,
    context,
    problems,
    async screenshot(name: string) {
      mkdirSync(ARTEFACTS, { recursive: true });
      const file = path.join(ARTEFACTS, `${name}.png`);
      await page.screenshot({ path: file, fullPage: true });
      return file;
    },
    close: () => context.close(),
  };
}
