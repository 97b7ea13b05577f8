import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { imageLoaded, launchChromium, openPage, reviewTheDefaultQueue, signIn } from '../support/browser.js';
import { startPlatform } from '../support/platform.js';
import { REVIEW_PASSWORD, reviewOrgConfig, type ReviewWorld, startReviewWorld } from '../support/review-fixture.js';
import { waitFor } from '../support/wait-for.js';

/**
 * `org.settings.wellness.loadMedia: ON_REVEAL` (docs/console.md, "Media and moderator wellness"):
 * the moderator's browser asks the media's host for nothing until the moderator reveals it. The
 * host may be the author's: with the default (ON_OPEN) it learns the moderator's address and when
 * the job was opened, before anyone chose to look.
 */
describe('the review console with media loaded only on reveal (browser)', () => {
  let platform: Awaited<ReturnType<typeof startPlatform>>;
  let world: ReviewWorld;
  let browser: Browser;
  const browserRequests = (path: string) => platform.mediaRequests.filter((r) => r.path === path && /Chrome/.test(r.userAgent));

  beforeAll(async () => {
    platform = await startPlatform();
    const config = reviewOrgConfig(platform.url).replace(
      'org: { id: rev, name: Review Org }',
      'org: { id: rev, name: Review Org, settings: { wellness: { loadMedia: ON_REVEAL } } }',
    );
    [world, browser] = await Promise.all([startReviewWorld(config, ['MODERATOR']), launchChromium()]);
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await world?.warden.stop();
    await platform?.close();
  });

  it('opens the job without requesting its image, and loads it when the moderator reveals it', async () => {
    const reported = await world.api('POST', '/api/v1/report', {
      reporter: { kind: 'user', id: 'reporter-1', typeId: 'user' },
      reportedAt: '2026-11-27T09:00:00Z',
      reportedItem: {
        id: 'post-tracked',
        typeId: 'post',
        data: { text: 'Look at this', author: { id: 'author-1', typeId: 'user' }, images: [`${platform.url}/media/pixel.png?item=post-tracked`] },
      },
      reportedForReason: { reason: 'Suspicious', policyId: 'spam' },
    });
    expect(reported.status).toBe(201);

    const { page, problems } = await openPage(browser);
    await signIn(page, world.warden.url, 'moderator@rev.example', REVIEW_PASSWORD);
    await reviewTheDefaultQueue(page);
    await page.getByText('Suspicious').waitFor();

    // The job is on screen with a stand-in for the image, and no element carries its URL.
    const standIn = page.getByRole('button', { name: /The image from .* is loaded only when you reveal it/ });
    await standIn.waitFor();
    expect(await page.locator('.media img').count()).toBe(0);
    expect(browserRequests('/media/pixel.png?item=post-tracked')).toEqual([]);

    await page.getByRole('button', { name: 'Reveal image' }).click();
    const image = page.locator('.media img');
    await waitFor(async () => (await imageLoaded(image)) || undefined, 'the image loaded once revealed');
    expect(browserRequests('/media/pixel.png?item=post-tracked')).toHaveLength(1);
    expect(problems).toEqual([]);
  }, 90_000);
});
