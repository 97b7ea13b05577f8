import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessibilityViolations, launchChromium, openPage, signIn } from '../support/browser.js';
import { startPlatform } from '../support/platform.js';
import { REVIEW_PASSWORD, reviewOrgConfig, type ReviewWorld, startReviewWorld } from '../support/review-fixture.js';
import { waitFor } from '../support/wait-for.js';

/**
 * Issue 15, item 6: every screen of the console checked by axe-core against WCAG 2.1 A and AA —
 * labels, names, roles, contrast, landmarks — with real data on it, at desktop and tablet width.
 */
describe('the review console is accessible (axe-core, WCAG 2.1 AA)', () => {
  let platform: Awaited<ReturnType<typeof startPlatform>>;
  let world: ReviewWorld;
  let browser: Browser;

  beforeAll(async () => {
    platform = await startPlatform();
    [world, browser] = await Promise.all([startReviewWorld(reviewOrgConfig(platform.url), ['ADMIN']), launchChromium()]);
    const reported = await world.api('POST', '/api/v1/report', {
      reporter: { kind: 'user', id: 'reporter-a11y', typeId: 'user' },
      reportedAt: '2026-11-27T09:00:00Z',
      reportedItem: {
        id: 'post-a11y',
        typeId: 'post',
        data: { text: 'A post with a picture', author: { id: 'author-a11y', typeId: 'user' }, images: [`${platform.url}/media/a11y.png`] },
      },
      reportedForReason: { reason: 'Looks like spam', policyId: 'spam' },
    });
    expect(reported.status).toBe(201);
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await world?.warden.stop();
    await platform?.close();
  });

  /** The violations of the page as it is now, named by page for the failure message. */
  const check = async (page: Page, name: string) => ({ name, violations: await accessibilityViolations(page) });

  for (const viewport of [
    { width: 1280, height: 800 },
    { width: 820, height: 1180 },
  ]) {
    it(`has no WCAG 2.1 A/AA violation on any screen at ${viewport.width} px`, async () => {
      const { page, problems } = await openPage(browser, { viewport, bypassCSP: true });
      const results = [];
      await page.goto(`${world.warden.url}/console/`);
      await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
      results.push(await check(page, 'sign-in'));
      await signIn(page, world.warden.url, 'admin@rev.example', REVIEW_PASSWORD);
      const nav = page.getByRole('navigation', { name: 'Console' });
      for (const link of await nav.getByRole('link').allTextContents()) {
        await nav.getByRole('link', { name: link, exact: true }).click();
        await page.getByRole('heading', { level: 1 }).first().waitFor();
        await page.locator('.page-head button:not([disabled]), form.card, tbody tr').first().waitFor();
        results.push(await check(page, link));
      }
      // The job view and the decision panel, with the image blurred.
      await nav.getByRole('link', { name: 'Queues', exact: true }).click();
      await waitFor(async () => {
        await page.getByRole('button', { name: 'Refresh' }).click();
        return (
          (await page
            .getByRole('row', { name: /Default/ })
            .getByRole('cell')
            .first()
            .textContent()) === '1' || undefined
        );
      }, 'the report pending in default');
      await page.getByRole('link', { name: 'Start reviewing Default' }).click();
      await page.getByRole('form', { name: 'Decision' }).waitFor();
      await page.locator('.media img').waitFor();
      results.push(await check(page, 'job view'));
      await page.getByRole('link', { name: 'Leave queue' }).click();
      await page.getByRole('heading', { name: 'Queues' }).waitFor();
      expect(results.filter((r) => r.violations.length > 0)).toEqual([]);
      expect(problems).toEqual([]);
    }, 120_000);
  }
});
