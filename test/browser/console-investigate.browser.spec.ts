import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computedStyle, launchChromium, openPage, screenshot, signIn } from '../support/browser.js';
import { startPlatform } from '../support/platform.js';
import { REVIEW_PASSWORD, reviewOrgConfigWithPillSpam, type ReviewWorld, startReviewWorld } from '../support/review-fixture.js';
import { waitFor } from '../support/wait-for.js';

interface Claimed {
  job: { jobId: string };
  lock: { token: string };
}

/**
 * Issue 34, item 1: Investigate in a real Chromium. A post removed by a LIVE rule, then reported
 * and decided by a manager: looked up by id, its page tells every step in order with its actor;
 * its creator's page shows strikes and score; media stays blurred; a MODERATOR has no
 * Investigate page. No console errors.
 */
describe('the console: Investigate (browser)', () => {
  let platform: Awaited<ReturnType<typeof startPlatform>>;
  let world: ReviewWorld;
  let browser: Browser;
  const author = { id: 'seller-9', typeId: 'user' };

  beforeAll(async () => {
    platform = await startPlatform();
    [world, browser] = await Promise.all([
      startReviewWorld(reviewOrgConfigWithPillSpam(platform.url), ['ADMIN', 'MODERATOR_MANAGER', 'MODERATOR']),
      launchChromium(),
    ]);
    const post = { id: 'p-story', typeId: 'post', data: { text: 'cheap pills, fast', author, images: [`${platform.url}/media/pills.png`] } };
    expect((await world.api('POST', '/api/v1/items/async', { items: [{ ...author, data: { name: 'Seller Nine' } }, post] })).status).toBe(202);
    await waitFor(() => platform.received.some((c) => c.body.includes('p-story')), "the rule's callback");
    const reported = await world.api('POST', '/api/v1/report', {
      reporter: { kind: 'user', id: 'reporter-9', typeId: 'user' },
      reportedAt: new Date().toISOString(),
      reportedItem: post,
      reportedForReason: { reason: 'selling pills' },
    });
    expect(reported.status).toBe(201);
    const manager = world.sessions['MODERATOR_MANAGER']!;
    const claimed = await waitFor(async () => {
      const r = await world.call(manager, 'POST', '/api/console/v1/queues/default/claim');
      return r.status === 200 ? ((await r.json()) as Claimed) : undefined;
    }, 'the report in the default queue');
    const decided = await world.call(manager, 'POST', `/api/console/v1/jobs/${claimed.job.jobId}/decision`, {
      lockToken: claimed.lock.token,
      type: 'CUSTOM_ACTION',
      actionIds: ['remove'],
      policyIds: ['spam'],
      reason: 'confirmed pill spam',
    });
    expect(decided.status, await decided.clone().text()).toBe(200);
    await waitFor(() => platform.received.filter((c) => c.body.includes('p-story')).length >= 2, "the decision's callback");
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await world?.warden.stop();
    await platform?.close();
  });

  it('looks an item up by id: every step in order with its actor, the media blurred; then its creator: strikes and score', async () => {
    const { page, context, problems } = await openPage(browser);
    await signIn(page, world.warden.url, 'admin@rev.example', REVIEW_PASSWORD);
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Investigate', exact: true }).click();
    const form = page.getByRole('form', { name: 'Look up by id' });
    await form.getByLabel('Look up').selectOption('item');
    await form.getByLabel('Type').fill('post');
    await form.getByLabel('Id').fill('p-story');
    await form.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('heading', { name: /Item post p-story/ }).waitFor();

    // Every step in log order, each with its actor: the submission (API key), the rule's action, the report, the manager's decision.
    const steps = page.getByRole('list', { name: 'Every step, oldest first' });
    const decidedStep = steps.locator('li[data-type="ReviewJobDecided"]');
    await waitFor(
      async () => (await decidedStep.count()) > 0 || (await page.getByRole('button', { name: 'Refresh' }).click(), undefined),
      'the decision on the page',
    );
    const types = await steps.locator('li').evaluateAll((items) => items.map((li) => li.getAttribute('data-type')));
    const at = (type: string) => types.indexOf(type);
    const order = ['ItemSubmitted', 'ItemEvaluated', 'ActionCallbackRequested', 'ReportSubmitted', 'ReviewJobOpened', 'ReviewJobDecided'];
    for (const type of order) expect(types, type).toContain(type);
    for (let i = 1; i < order.length; i++) expect(at(order[i - 1]!), `${order[i - 1]} before ${order[i]}`).toBeLessThan(at(order[i]!));
    expect(await steps.locator('li[data-type="ItemSubmitted"]').first().textContent()).toContain('api-key:');
    expect(await decidedStep.textContent()).toContain(`moderator ${world.userIds['MODERATOR_MANAGER']}`);
    const decisions = page.getByRole('region', { name: /Review jobs and decisions/ });
    expect(await decisions.textContent()).toContain('confirmed pill spam');
    expect(await decisions.textContent()).toContain(`moderator ${world.userIds['MODERATOR_MANAGER']}`);
    const actions = page.getByRole('region', { name: /^Actions/ });
    await waitFor(
      async () => (await actions.getByText('delivered').count()) >= 2 || (await page.getByRole('button', { name: 'Refresh' }).click(), undefined),
      'both callbacks delivered',
    );
    expect(await page.getByRole('region', { name: /Rule evaluations/ }).textContent()).toContain('Pill spam');
    // The image is blurred as the review screen shows it until revealed.
    const frame = page.locator('.media-frame').first();
    await frame.waitFor();
    expect(await frame.getAttribute('data-hidden')).toBe('true');
    expect(await computedStyle(frame.locator('img'), 'filter')).toContain('blur');
    await screenshot(page, 'investigate-item');

    // The creator's page: strikes over time and score. The score comes from the user-scores read
    // model, which follows the log on its own thread: the page is opened once it has the removals.
    await waitFor(async () => {
      const res = await world.call(world.sessions['ADMIN']!, 'GET', '/api/console/v1/investigate/users/user/seller-9');
      return ((await res.json()) as { score: number }).score < 5 || undefined;
    }, 'the removals in the score');
    await page
      .getByRole('region', { name: 'Creator' })
      .getByRole('link', { name: /seller-9/ })
      .click();
    await page.getByRole('heading', { name: /User user seller-9/ }).waitFor();
    const standing = page.getByRole('region', { name: 'Standing' });
    await standing.getByTestId('strike-count').waitFor();
    // The same figures the API gives (the enforcement module's count and score).
    const api = (await (await world.call(world.sessions['ADMIN']!, 'GET', '/api/console/v1/investigate/users/user/seller-9')).json()) as {
      score: number;
      strikes: { count: number; entries: unknown[] };
    };
    expect(api.strikes.count).toBeGreaterThanOrEqual(1);
    expect(await standing.getByTestId('strike-count').textContent()).toBe(String(api.strikes.count));
    expect(await standing.getByTestId('score').textContent()).toBe(String(api.score));
    expect(api.score).toBeLessThan(5);
    expect(await standing.getByRole('table', { name: 'Strikes over time, newest first' }).getByRole('row').count()).toBe(api.strikes.entries.length + 1);
    expect(await page.getByRole('region', { name: /^Items/ }).textContent()).toContain('p-story');
    expect(await page.getByRole('region', { name: 'Profile' }).textContent()).toContain('Seller Nine');
    await screenshot(page, 'investigate-user');
    expect(problems).toEqual([]);
    await context.close();
  }, 90_000);

  it('shows a MODERATOR no Investigate page: no entry in the navigation, no data at its address', async () => {
    const { page, context, problems } = await openPage(browser);
    await signIn(page, world.warden.url, 'moderator@rev.example', REVIEW_PASSWORD);
    const nav = page.getByRole('navigation', { name: 'Console' });
    await nav.getByRole('link', { name: 'Queues' }).waitFor();
    expect(await nav.getByRole('link', { name: 'Investigate' }).count()).toBe(0);
    await page.goto(`${world.warden.url}/console/investigate/items/post/p-story`);
    await page.getByText('You do not have access to this page.').waitFor();
    expect(await page.getByText('cheap pills, fast').count()).toBe(0);
    expect(await page.getByRole('list', { name: 'Every step, oldest first' }).count()).toBe(0);
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);
});
