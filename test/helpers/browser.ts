import { existsSync } from 'node:fs';
import type { ExecutionContext } from 'ava';
import { chromium, type Browser, type Page } from 'playwright-core';

/**
 * A real browser for the playground's tests: Debian's `chromium` (installed by .ci/run where
 * missing) driven by playwright-core, which downloads no browser of its own. Where no Chromium
 * exists the tests are skipped with the reason, except under CI (CI=true), where that is a
 * failure: the proof must run.
 */
const CANDIDATES = [process.env['CHROMIUM_PATH'], '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter((path): path is string => path !== undefined && path !== '');

export function chromiumPath(): string | undefined {
  return CANDIDATES.find((path) => existsSync(path));
}

export const chromiumMissing = (): string | undefined =>
  chromiumPath() === undefined ? `no Chromium at ${CANDIDATES.join(', ')} (apt-get install chromium, or set CHROMIUM_PATH)` : undefined;

export async function launchChromium(): Promise<Browser> {
  const executablePath = chromiumPath();
  if (executablePath === undefined) throw new Error(chromiumMissing());
  // --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start.
  return chromium.launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'] });
}

/** Every way a page can go wrong quietly: CSP violations, uncaught errors, console errors, requests to another origin. */
export interface PageProblems {
  readonly list: string[];
}

/**
 * `expectedStatuses`: error statuses the page is meant to meet (Chromium logs every failed load
 * as a console error): 401 by default (no key yet, a wrong key).
 */
export async function watchPage(page: Page, origin: string, expectedStatuses: readonly number[] = [401]): Promise<PageProblems> {
  const list: string[] = [];
  // Browser-side code as text: this program is compiled without the DOM's types.
  await page.addInitScript(`document.addEventListener('securitypolicyviolation', (event) => {
    console.error('CSP violation: ' + event.violatedDirective + ' blocked ' + event.blockedURI + ' at ' + event.sourceFile + ':' + event.lineNumber + ':' + event.columnNumber + ' ' + event.sample);
  });`);
  page.on('console', (message) => {
    const status = /the server responded with a status of (\d+)/.exec(message.text())?.[1];
    if (message.type() === 'error' && !(status !== undefined && expectedStatuses.includes(Number(status)))) list.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => list.push(`page error: ${error.message}`));
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.protocol !== 'blob:' && url.protocol !== 'data:' && url.origin !== origin) list.push(`request to another origin: ${request.url()}`);
  });
  return { list };
}

/** Skips (or, under CI, fails) when no Chromium is installed; returns whether to go on. */
export function requireChromium(t: ExecutionContext): boolean {
  const missing = chromiumMissing();
  if (missing === undefined) return true;
  if (process.env['CI'] === 'true') t.fail(missing);
  else t.log(`skipped: ${missing}`);
  if (process.env['CI'] !== 'true') t.pass();
  return false;
}
