import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Locator, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { waitFor } from './wait-for.js';

/**
 * A real Chromium for the console's browser tests: Debian's package of its headless shell
 * (`apt-get install chromium-headless-shell`, done by `npm test`'s pretest step on a fresh
 * machine), never a browser download. The same engine as the full browser (Blink, V8) without the
 * browser's own window layer, which headless tests never show: the browser tests took a third
 * less CPU in it (docs/testing.md, "What the suite costs"). WARDEN_CHROMIUM names another binary
 * (`/usr/bin/chromium`, the full browser, works too).
 */
export const CHROMIUM = process.env['WARDEN_CHROMIUM'] ?? '/usr/bin/chromium-headless-shell';

/** The screenshots that docs/console.md shows, taken by the browser tests. */
export const SCREENSHOTS = join(import.meta.dirname, '../../docs/console');

/**
 * Whether this run rewrites them: only `npm run docs:screenshots` (WARDEN_SCREENSHOTS=write)
 * does, so that `npm test` leaves the work tree as it found it.
 */
export const WRITE_SCREENSHOTS = process.env['WARDEN_SCREENSHOTS'] === 'write';

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `No Chromium at ${CHROMIUM}: run \`apt-get install chromium-headless-shell\` (npm test's pretest step does it as root) or set WARDEN_CHROMIUM`,
    );
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
  const context = await browser.newContext({
    viewport: options.viewport ?? { width: 1280, height: 800 },
    reducedMotion: 'reduce',
    bypassCSP: options.bypassCSP ?? false,
  });
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

/** Width and height of a PNG, from its IHDR chunk. */
export function pngSize(png: Buffer): { width: number; height: number } {
  expect(png.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))).toBe(true);
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

/**
 * The screenshot `name` of docs/console.md, of the page or of one element. `npm run
 * docs:screenshots` writes it there; any other run takes it (so it can still be produced) and
 * checks it against the committed file's size in pixels, leaving the file alone. Pixels
 * themselves are not compared: fonts and anti-aliasing differ between machines.
 */
export async function screenshot(target: Page | Locator, name: string): Promise<void> {
  const path = join(SCREENSHOTS, `${name}.png`);
  if (WRITE_SCREENSHOTS) {
    mkdirSync(SCREENSHOTS, { recursive: true });
    await target.screenshot({ path });
    return;
  }
  const taken = pngSize(await target.screenshot());
  expect(existsSync(path), `${path} is missing: run \`npm run docs:screenshots\``).toBe(true);
  expect(taken, `${name}.png has another size than the committed one: run \`npm run docs:screenshots\` if the console's layout changed`).toEqual(
    pngSize(readFileSync(path)),
  );
}

/** Signs in through the console's own form. */
export async function signIn(page: Page, baseUrl: string, email: string, password: string): Promise<void> {
  await page.goto(`${baseUrl}/console/`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

/**
 * On the Queues page: waits until the default queue shows one job waiting (refreshing, as the
 * worker routes the report in the background), then starts reviewing it.
 */
export async function reviewTheDefaultQueue(page: Page): Promise<void> {
  const row = page.getByRole('row', { name: /Default/ });
  await waitFor(async () => {
    await page.getByRole('button', { name: 'Refresh' }).click();
    return (await row.getByRole('cell').first().textContent()) === '1' || undefined;
  }, 'the reported post pending in the default queue');
  await page.getByRole('link', { name: 'Start reviewing Default' }).click();
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

/** axe-core's script (the npm package's own), read once for every page it is injected into. */
let axeScript: string | undefined;

/**
 * Runs axe-core (the npm package's own script, injected into the page: the context must bypass
 * the console's CSP, which allows no script but Warden's) against WCAG 2.1 A and AA. The script
 * is injected once per page load (a load clears it): the console moves between its screens
 * without loading a page, and injecting it again made the page compile 640 kB of script per check.
 */
export async function accessibilityViolations(page: Page): Promise<AxeViolation[]> {
  if (!(await page.evaluate(() => 'axe' in globalThis))) {
    axeScript ??= readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
    await page.addScriptTag({ content: axeScript });
  }
  return page.evaluate(async () => {
    const axe = (
      globalThis as unknown as {
        axe: {
          run(
            context: unknown,
            options: unknown,
          ): Promise<{ violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: unknown[] }> }> }>;
        };
      }
    ).axe;
    const result = await axe.run((globalThis as unknown as { document: unknown }).document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
    });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) }));
  });
}
