import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computedStyle, imageLoaded, launchChromium, openPage, reviewTheDefaultQueue, screenshot, signIn } from '../support/browser.js';
import { isSignedByWarden } from '../support/callback-signature.js';
import { loggedEvents } from '../support/config-files.js';
import { startPlatform } from '../support/platform.js';
import { REVIEW_PASSWORD, reviewOrgConfigWithPillSpam, type ReviewWorld, startReviewWorld } from '../support/review-fixture.js';
import { waitFor } from '../support/wait-for.js';

/**
 * Issue 15: a moderator's day in a real Chromium against a real server: sign in, claim, the image
 * blurred until revealed, a CUSTOM_ACTION with a policy and reason, and the platform's receiver
 * gets the signed callback.
 */

describe('the review console: a moderator reviews a reported post (browser)', () => {
  let platform: Awaited<ReturnType<typeof startPlatform>>;
  let world: ReviewWorld;
  let browser: Browser;

  beforeAll(async () => {
    platform = await startPlatform();
    [world, browser] = await Promise.all([startReviewWorld(reviewOrgConfigWithPillSpam(platform.url), ['MODERATOR']), launchChromium()]);
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await world?.warden.stop();
    await platform?.close();
  });

  it('signs in, claims, reveals the blurred image, removes the post for Spam with a reason; the platform gets a signed callback', async () => {
    const reported = await world.api('POST', '/api/v1/report', {
      reporter: { kind: 'user', id: 'reporter-1', typeId: 'user' },
      reportedAt: '2026-11-27T09:00:00Z',
      reportedItem: {
        id: 'post-1',
        typeId: 'post',
        data: { text: 'Buy cheap watches at my shop', author: { id: 'spammer-1', typeId: 'user' }, images: [`${platform.url}/media/watch.png`] },
      },
      reportedForReason: { reason: 'This is spam', policyId: 'spam' },
    });
    expect(reported.status).toBe(201);

    const { page, problems } = await openPage(browser);
    await signIn(page, world.warden.url, 'moderator@rev.example', REVIEW_PASSWORD);
    await page.getByRole('heading', { name: 'Queues' }).waitFor();
    // A MODERATOR sees review, not administration.
    const nav = page.getByRole('navigation', { name: 'Console' });
    expect(await nav.getByRole('link').allTextContents()).toEqual(['Queues']);
    // The report reaches the default queue once the worker has routed it.
    const row = page.getByRole('row', { name: /Default/ });
    await waitFor(async () => {
      await page.getByRole('button', { name: 'Refresh' }).click();
      return (await row.getByRole('cell').first().textContent()) === '1' || undefined;
    }, 'the reported post pending in the default queue');
    await screenshot(page, 'queues');

    await page.getByRole('link', { name: 'Start reviewing Default' }).click();
    await page.getByRole('heading', { name: /Post/ }).waitFor();
    expect(await page.getByRole('timer').textContent()).toMatch(/Lock: \d+:\d\d left/);
    const image = page.locator('.media img');
    await image.waitFor();
    await waitFor(async () => (await imageLoaded(image)) || undefined, 'the image loaded from its URL');
    expect(await computedStyle(image, 'filter')).toMatch(/blur\(\d+px\) grayscale\(1\)/);
    await page.getByText('This is spam').waitFor();
    await screenshot(page, 'job-blurred');

    await page.getByRole('button', { name: 'Reveal image' }).click();
    await waitFor(async () => (await computedStyle(image, 'filter')) === 'none' || undefined, 'the image shown unfiltered');
    await screenshot(page, 'job-revealed');

    const panel = page.getByRole('form', { name: 'Decision' });
    await panel.getByLabel('Remove').check();
    await panel.getByLabel('durationDays').fill('7');
    await panel.getByLabel('Spam').check();
    await panel.getByLabel(/^Reason/).fill('Commercial spam');
    await screenshot(panel, 'decision-panel');
    await panel.getByRole('button', { name: /Take action/ }).click();

    // The queue is empty now: the console says so after the decision.
    await page.getByText('No job is waiting in this queue.').waitFor();
    const callback = await waitFor(() => platform.received.find((c) => c.path === '/hooks/remove'), 'the remove callback at the platform');
    const body = JSON.parse(callback.body) as Record<string, unknown> & { custom: Record<string, unknown>; policies: Array<{ id: string }> };
    expect(body).toMatchObject({ actorEmail: 'moderator@rev.example', decisionReason: 'Commercial spam', item: { id: 'post-1', typeId: 'post' } });
    expect(body.policies.map((p) => p.id)).toEqual(['spam']);
    expect(body.custom).toMatchObject({ durationDays: 7, severity: 'high', reason: 'Commercial spam' });
    expect(await isSignedByWarden(world.warden.url, world.key, callback.headers, callback.body)).toBe(true);
    expect(problems).toEqual([]);
  }, 90_000);

  // Issue 30 item 16: a reported post the live rule had already removed shows what Warden did.
  it("shows on a reported job the rule that already fired, its action with the callback delivered, and the creator's recent actions", async () => {
    const post = { text: 'Buy cheap pills now', author: { id: 'spammer-2', typeId: 'user' } };
    expect((await world.api('POST', '/api/v1/items/async', { items: [{ id: 'post-2', typeId: 'post', data: post }] })).status).toBe(202);
    await waitFor(() => platform.received.find((c) => c.path === '/hooks/remove' && c.body.includes('"post-2"')), "the rule's remove callback of post-2");
    const reported = await world.api('POST', '/api/v1/report', {
      reporter: { kind: 'user', id: 'reporter-2', typeId: 'user' },
      reportedAt: '2026-11-27T10:00:00Z',
      reportedItem: { id: 'post-2', typeId: 'post', data: post },
      reportedForReason: { reason: 'Pills again', policyId: 'spam' },
    });
    expect(reported.status).toBe(201);
    // The creator's actions come from the audit trail's index, built in the background: the screen is opened once the API has them.
    const jobId = await waitFor(
      () => loggedEvents(world.dataDir, 'ReviewJobOpened').find((e) => (e.data['item'] as { id: string }).id === 'post-2')?.data['jobId'] as string | undefined,
      'the job of the report on post-2',
    );
    await waitFor(async () => {
      const view = (await (await world.call(world.sessions['MODERATOR']!, 'GET', `/api/console/v1/jobs/${jobId}`)).json()) as {
        actions?: { creator: unknown[] };
      };
      return (view.actions?.creator.length ?? 0) > 0 || undefined;
    }, "the creator's actions in the job view");

    const { page, problems } = await openPage(browser);
    await signIn(page, world.warden.url, 'moderator@rev.example', REVIEW_PASSWORD);
    await reviewTheDefaultQueue(page);
    await page.getByText('Pills again').waitFor();

    const fired = page.getByRole('region', { name: 'Rules that fired' });
    expect(await fired.getByText(/Rule Pill spam: passed \(live, version 0/).count()).toBe(1);
    const onItem = page.getByRole('list', { name: 'Actions on this item' });
    expect(await onItem.textContent()).toMatch(/action Remove · rule \(Pill spam\) · policy Spam · callback delivered/);
    const ofCreator = page.getByRole('list', { name: "The creator's recent actions" });
    expect(await ofCreator.textContent()).toMatch(/action Remove on post post-2 · rule/);
    await screenshot(page, 'job-what-warden-did');
    // Decided, so that the next test finds no job of this moderator's still held.
    await page.getByRole('radio', { name: 'Ignore' }).check();
    await page
      .getByRole('button', { name: /Ignore/ })
      .last()
      .click();
    await page.getByText('No job is waiting in this queue.').waitFor();
    expect(problems).toEqual([]);
  }, 90_000);

  it('offers blur and greyscale only for a job with media: not for a text-only post, again for one with an image (issue 30, item 19)', async () => {
    const report = (id: string, data: Record<string, unknown>) =>
      world.api('POST', '/api/v1/report', {
        reporter: { kind: 'user', id: `reporter-${id}`, typeId: 'user' },
        reportedAt: '2026-11-27T10:00:00Z',
        reportedItem: { id, typeId: 'post', data },
        reportedForReason: { reason: `about ${id}` },
      });
    const pending = async () => {
      const body = (await (await world.call(world.sessions['MODERATOR']!, 'GET', '/api/console/v1/queues')).json()) as {
        queues: Array<{ id: string; pending: number }>;
      };
      return body.queues.find((q) => q.id === 'default')?.pending;
    };
    expect((await report('text-only', { text: 'Nothing but words here' })).status).toBe(201);
    await waitFor(async () => (await pending()) === 1 || undefined, 'the text-only post pending in default');

    const { page, problems } = await openPage(browser);
    await signIn(page, world.warden.url, 'moderator@rev.example', REVIEW_PASSWORD);
    await page.goto(`${world.warden.url}/console/review/default`);
    await page.getByRole('heading', { name: /text-only/ }).waitFor();
    await page.getByText('Nothing but words here').waitFor();
    expect(await page.getByRole('group', { name: 'Media' }).count()).toBe(0);
    expect(await page.getByLabel('Blur').count()).toBe(0);
    expect(await page.getByLabel('Greyscale').count()).toBe(0);
    expect(await page.getByRole('region', { name: 'Keyboard shortcuts' }).textContent()).not.toContain('Reveal or blur media');

    // `pending` leaves out the job on screen (locked): the next one is waiting before the decision opens it.
    expect((await report('with-image', { text: 'Look at this', images: [`${platform.url}/media/with-image.png`] })).status).toBe(201);
    await waitFor(async () => (await pending()) === 1 || undefined, 'the post with an image pending in default');
    await page.getByRole('radio', { name: 'Ignore' }).check();
    await page
      .getByRole('button', { name: /Ignore/ })
      .last()
      .click();
    await page.getByRole('heading', { name: /with-image/ }).waitFor();
    await page.getByRole('group', { name: 'Media' }).waitFor();
    expect(await page.getByLabel('Blur').count()).toBe(1);
    expect(await page.getByRole('region', { name: 'Keyboard shortcuts' }).textContent()).toContain('Reveal or blur media');
    expect(problems).toEqual([]);
  }, 90_000);
});
