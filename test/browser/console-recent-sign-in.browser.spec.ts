import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, openPage, signIn } from '../support/browser.js';
import { REVIEW_PASSWORD, reviewOrgConfig, type ReviewWorld, startReviewWorld } from '../support/review-fixture.js';

/**
 * A change that needs a recent sign-in (docs/console-access.md, "Recent sign-in"), refused: the
 * console says why and offers to sign in again. The server's window is 0 seconds, so every
 * session is already too old for such a change, without the test waiting for a clock.
 */
describe('the review console: a change that needs a recent sign-in (browser)', () => {
  let world: ReviewWorld;
  let browser: Browser;

  beforeAll(async () => {
    [world, browser] = await Promise.all([
      startReviewWorld(reviewOrgConfig('http://127.0.0.1:9/callbacks'), ['ADMIN'], { WARDEN_CONSOLE_RECENT_SIGN_IN_SECONDS: '0' }),
      launchChromium(),
    ]);
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await world?.warden.stop();
  });

  it('rotating a key with an old sign-in shows why and a Sign in again button, which leads to the sign-in page', async () => {
    const { page, problems, context } = await openPage(browser);
    await signIn(page, world.warden.url, 'admin@rev.example', REVIEW_PASSWORD);
    await page.goto(`${world.warden.url}/console/api-keys`);
    await page.getByRole('button', { name: /^Rotate key / }).click();
    await page.getByRole('button', { name: 'Rotate key', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: 'need a recent sign-in' }).waitFor();
    expect(await page.getByLabel('New API key').count()).toBe(0);
    await page.getByRole('button', { name: 'Sign in again' }).click();
    await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
    expect(await page.getByRole('button', { name: 'Sign out' }).count()).toBe(0);
    // The refused change is the only failed request the page made.
    expect(problems.filter((p) => !p.includes('403'))).toEqual([]);
    await context.close();
  }, 90_000);
});
