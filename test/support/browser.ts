import { existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Locator, type Page } from 'playwright-core';

/**
 * A real Chromium for the console's browser tests: Debian's package (`apt-get install chromium`,
 * done by `npm test`'s pretest step on a fresh machine), never a browser download.
 * WARDEN_CHROMIUM points elsewhere if a machine keeps it in another place.
 */
export const CHROMIUM = process.env['WARDEN_CHROMIUM'] ?? '/usr/bin/chromium';

/** Where the tests put the screenshots that docs/console.md shows, so they stay current. */
export const SCREENSHOTS = join(import.meta.dirname, '../../docs/console');

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`No Chromium at ${CHROMIUM}: run \`apt-get install chromium\` (npm test's pretest step does it as root) or set WARDEN_CHROMIUM`);
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    // This machine's network is closed: Chromium's own background traffic would only fail.
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** What went wrong in the page: console errors and uncaught exceptions. A test ends with none. */
export interface PageProblems {
  readonly problems: string[];
}

/** A fresh browser context (its own cookies) at 1280×800, recording the page's errors. */
export async function openPage(
  browser: Browser,
  options: { viewport?: { width: number; height: number }; bypassCSP?: boolean } = {},
): Promise<{ context: BrowserContext; page: Page } & PageProblems> {
  const context = await browser.newContext({ viewport: options.viewport ?? { width: 1280, height: 800 }, reducedMotion: 'reduce', bypassCSP: options.bypassCSP ?? false });
  const page = await context.newPage();
  // A locator that never appears fails the step that waited for it, well inside the test's own timeout.
  page.setDefaultTimeout(10_000);
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  return { context, page, problems };
}

/** Saves a screenshot for docs/console.md. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: false });
}

/** Signs in through the console's own form. */
export async function signIn(page: Page, baseUrl: string, email: string, password: string): Promise<void> {
  await page.goto(`${baseUrl}/console/`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

/** A computed style of the element (the tests compile without the DOM's types). */
export const computedStyle = (locator: Locator, property: string): Promise<string> =>
  locator.evaluate(
    (element, name) => (globalThis as unknown as { getComputedStyle(e: unknown): Record<string, string> }).getComputedStyle(element)[name] ?? '',
    property,
  );

/** Whether an image element has loaded its picture. */
export const imageLoaded = (locator: Locator): Promise<boolean> =>
  locator.evaluate((element) => {
    const image = element as unknown as { complete: boolean; naturalWidth: number };
    return image.complete && image.naturalWidth > 0;
  });

/** One accessibility rule broken on a page, as axe-core reports it: the rule and where. */
export interface AxeViolation {
  readonly id: string;
  readonly impact: string | null;
  readonly help: string;
  readonly targets: string[];
}

/**
 * Runs axe-core (the npm package's own script, injected into the page: the context must bypass
 * the console's CSP, which allows no script but Warden's) against WCAG 2.1 A and AA.
 */
export async function accessibilityViolations(page: Page): Promise<AxeViolation[]> {
  await page.addScriptTag({ path: createRequire(import.meta.url).resolve('axe-core/axe.min.js') });
  return page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(context: unknown, options: unknown): Promise<{ violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: unknown[] }> }> }> } }).axe;
    const result = await axe.run((globalThis as unknown as { document: unknown }).document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) }));
  });
}
