import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, openPage } from '../support/browser.js';
import { freePort } from '../support/free-port.js';
import { freshDataDir, type RunningWarden, startWarden, testEnv } from '../support/warden-process.js';

/**
 * Issue 30, item 10: /docs (Swagger UI) is served under a strict Content-Security-Policy, and the
 * page still works under it in a real Chromium: it renders the API and "Try it out" reaches the
 * server, with no violation of the policy (each one is a console error and a
 * securitypolicyviolation event).
 */
describe('Swagger UI at /docs under its Content-Security-Policy', () => {
  let warden: RunningWarden;
  let browser: Browser;

  beforeAll(async () => {
    // "Try it out" sends its request to the document's server, WARDEN_PUBLIC_URL (with PORT=0 the
    // default would name port 0): the page is opened at that same origin, as a deployment's is.
    const port = await freePort();
    const env = testEnv(freshDataDir(), { PORT: String(port), WARDEN_PUBLIC_URL: `http://127.0.0.1:${port}` });
    [warden, browser] = await Promise.all([startWarden(env), launchChromium()]);
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await warden?.stop();
  });

  for (const path of ['/docs', '/docs/']) {
    it(`renders ${path} and runs an operation with no CSP violation`, async () => {
      const { page, problems } = await openPage(browser);
      // Recorded from before the page's first script (an init script is not subject to the page's policy).
      await page.addInitScript(() => {
        const seen: string[] = [];
        (globalThis as unknown as { cspViolations: string[] }).cspViolations = seen;
        (
          globalThis as unknown as { addEventListener(type: string, listener: (e: { violatedDirective: string; blockedURI: string }) => void): void }
        ).addEventListener('securitypolicyviolation', (e) => seen.push(`${e.violatedDirective} ${e.blockedURI}`));
      });
      const response = await page.goto(`${warden.url}${path}`);
      expect(response?.status()).toBe(200);
      expect(response?.headers()['content-security-policy']).toMatch(/^default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-hashes' 'sha256-/);

      await page.locator('.swagger-ui .info .title', { hasText: 'Warden' }).waitFor();
      expect(await page.locator('.opblock').count()).toBeGreaterThan(10);
      // The inline style blocks applied (the page's own <style> sets the body's margin to 0).
      expect(
        await page.evaluate(
          () =>
            (globalThis as unknown as { getComputedStyle(e: unknown): { margin: string }; document: { body: unknown } }).getComputedStyle(
              (globalThis as unknown as { document: { body: unknown } }).document.body,
            ).margin,
        ),
      ).toBe('0px');

      // The authorization dialog, where a key is typed in.
      await page.getByRole('button', { name: 'Authorize' }).first().click();
      await page.locator('.auth-container', { hasText: 'X-API-KEY' }).waitFor();
      await page.getByRole('button', { name: 'Close' }).first().click();

      // "Try it out" on the liveness check: a request from the page to this origin.
      const live = page.locator('.opblock', { has: page.locator('.opblock-summary-path[data-path="/health/live"]') });
      await live.locator('.opblock-summary-control').click();
      await live.getByRole('button', { name: 'Try it out' }).click();
      await live.getByRole('button', { name: 'Execute' }).click();
      await live.locator('.live-responses-table .response-col_status', { hasText: '200' }).waitFor();

      expect(await page.evaluate(() => (globalThis as unknown as { cspViolations: string[] }).cspViolations)).toEqual([]);
      expect(problems).toEqual([]);
    }, 60_000);
  }
});
