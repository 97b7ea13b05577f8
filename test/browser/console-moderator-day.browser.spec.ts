import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loggedEvents } from '../support/config-files.js';
import { computedStyle, launchChromium, openPage, signIn } from '../support/browser.js';
import { startPlatform } from '../support/platform.js';
import { REVIEW_PASSWORD, reviewOrgConfig, type ReviewWorld, startReviewWorld } from '../support/review-fixture.js';
import { waitFor } from '../support/wait-for.js';

/**
 * Issue 15, item 3 and 4: the moderator's working day beyond one decision — keyboard only on a
 * tablet, the lock renewed while the moderator is active and given back on leaving, and the
 * wellness settings (organization defaults, a remembered personal override, a break suggested).
 */

const TABLET = { width: 820, height: 1180 };
/**
 * A queue whose lock is short enough to see it renewed within a test, and long enough for the
 * console to renew it in time on a loaded machine: it renews at the first check (every quarter of
 * the lock) after half the time, so 2 s before the expiry at the latest.
 */
const QUICK_QUEUE = '  - { id: quick, name: Quick, lockTimeoutSeconds: 8 }\n';
/** Reports naming the spam policy go to the `spam` queue. */
const SPAM_ROUTING = `
routingRules:
  - id: spam-reports
    name: Spam reports
    queueId: spam
    itemTypeIds: [post]
    conditionSet:
      conjunction: AND
      conditions:
        - { input: { builtin: REPORTED_POLICY }, comparator: EQUALS, value: spam }
`;
const WELLNESS = 'org: { id: rev, name: Review Org, settings: { wellness: { blur: 3, greyscale: false, breakAfterItems: 2 } } }';

describe('the review console: a moderator works a queue (browser)', () => {
  let world: ReviewWorld;
  let browser: Browser;
  let platform: Awaited<ReturnType<typeof startPlatform>>;

  beforeAll(async () => {
    platform = await startPlatform();
    const config =
      reviewOrgConfig(platform.url).replace('org: { id: rev, name: Review Org }', WELLNESS).replace('queues:\n', `queues:\n${QUICK_QUEUE}`) + SPAM_ROUTING;
    [world, browser] = await Promise.all([startReviewWorld(config, ['MODERATOR', 'CHILD_SAFETY_MODERATOR']), launchChromium()]);
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await world?.warden.stop();
    await platform?.close();
  });

  /** Reports `count` posts with an image into a queue: `spam` when the reason names the spam policy. */
  async function reportPosts(prefix: string, count: number, policyId?: string) {
    for (let i = 0; i < count; i++) {
      const response = await world.api('POST', '/api/v1/report', {
        reporter: { kind: 'user', id: `reporter-${prefix}-${i}`, typeId: 'user' },
        reportedAt: '2026-11-27T09:00:00Z',
        reportedItem: { id: `${prefix}-${i}`, typeId: 'post', data: { text: `post ${prefix} ${i}`, images: [`${platform.url}/media/${prefix}-${i}.png`] } },
        reportedForReason: { reason: `report ${i}`, ...(policyId ? { policyId } : {}) },
      });
      expect(response.status).toBe(201);
    }
  }

  const pending = async (queueId: string, session = world.sessions['MODERATOR']!) => {
    const body = (await (await world.call(session, 'GET', '/api/console/v1/queues')).json()) as {
      queues: Array<{ id: string; pending: number; locked: number }>;
    };
    return body.queues.find((q) => q.id === queueId);
  };

  it('works a queue by keyboard alone on a tablet: reveal, ignore, submit, the next job opens, skip; nothing overflows', async () => {
    await reportPosts('kb', 2);
    await waitFor(async () => (await pending('default'))?.pending === 2 || undefined, 'two jobs pending in default');
    const { page, problems } = await openPage(browser, { viewport: TABLET });
    await signIn(page, world.warden.url, 'moderator@rev.example', REVIEW_PASSWORD);
    await page.getByRole('link', { name: 'Start reviewing Default' }).focus();
    await page.keyboard.press('Enter');
    const heading = page.getByRole('heading', { level: 2 });
    await heading.filter({ hasText: /kb-\d/ }).waitFor();
    const first = await heading.textContent();
    // The shortcuts are listed on screen.
    expect(await page.getByRole('region', { name: 'Keyboard shortcuts' }).textContent()).toContain('Reveal or blur media');
    const image = page.locator('.media img');
    expect(await computedStyle(image, 'filter')).toBe('blur(28px)');
    await page.keyboard.press('v');
    await waitFor(async () => (await computedStyle(image, 'filter')) === 'none' || undefined, 'media revealed by the v key');
    // A MODERATOR may not file child-safety reports (VIEW_CHILD_SAFETY_DATA): the option is absent.
    expect(await page.getByRole('radio', { name: 'Child-safety report' }).count()).toBe(0);
    await page.keyboard.press('i');
    expect(await page.getByRole('radio', { name: 'Ignore' }).isChecked()).toBe(true);
    // Ctrl+Enter held down (the key repeats) and a click on the button at once: one decision.
    // The click is dispatched on this job's button itself, at once, whatever its state: disabled
    // while the decision is under way, or gone with its job (each job has its own panel). A mouse
    // click would wait until the button could be clicked, which it never can be again (the
    // page's whole timeout), or land on whatever the next job put at its place.
    const submitButton = page.getByRole('button', { name: /^Ignore/ });
    const ignoreButton = await submitButton.elementHandle();
    await page.keyboard.down('Control');
    await page.keyboard.down('Enter');
    await page.keyboard.down('Enter');
    await page.keyboard.up('Enter');
    await page.keyboard.up('Control');
    await ignoreButton!.dispatchEvent('click');
    await waitFor(async () => {
      const now = await heading.textContent();
      return now !== first && /kb-\d/.test(now ?? '') ? now : undefined;
    }, 'the next job after the decision');
    expect(loggedEvents(world.dataDir, 'ReviewJobDecided')).toHaveLength(1);
    expect(
      await page.evaluate(() => {
        const root = (globalThis as unknown as { document: { scrollingElement: { scrollWidth: number; clientWidth: number } } }).document.scrollingElement;
        return root.scrollWidth <= root.clientWidth;
      }),
    ).toBe(true);
    // s skips: the job goes back, and this moderator is not offered it again for a while.
    await page.keyboard.press('s');
    await page.getByText('No job is waiting in this queue.').waitFor();
    await waitFor(async () => {
      const queue = await pending('default');
      return queue?.locked === 0 && queue.pending === 1 ? queue : undefined;
    }, 'the skipped job back in the queue, unlocked');
    await page.keyboard.press('Escape');
    await page.getByRole('heading', { name: 'Queues' }).waitFor();
    expect(problems).toEqual([]);

    // A CHILD_SAFETY_MODERATOR has the child-safety report among the decisions.
    const other = await openPage(browser);
    await signIn(other.page, world.warden.url, 'child_safety_moderator@rev.example', REVIEW_PASSWORD);
    await other.page.getByRole('link', { name: 'Start reviewing Default' }).click();
    await other.page.getByRole('radio', { name: 'Child-safety report' }).waitFor();
    await waitFor(async () => (await pending('default'))?.locked === 1 || undefined, 'the job locked by the child-safety moderator');
    // Leaving the queue gives the lock back.
    await other.page.getByRole('link', { name: 'Leave queue' }).click();
    await other.page.getByRole('heading', { name: 'Queues' }).waitFor();
    await waitFor(async () => (await pending('default'))?.locked === 0 || undefined, 'the lock released on leaving');
    // Closing the tab with a job on screen gives its lock back too.
    await other.page.getByRole('link', { name: 'Start reviewing Default' }).click();
    await other.page.getByRole('radio', { name: 'Child-safety report' }).waitFor();
    await waitFor(async () => (await pending('default'))?.locked === 1 || undefined, 'the job locked again');
    await other.page.close({ runBeforeUnload: true });
    await waitFor(async () => (await pending('default'))?.locked === 0 || undefined, 'the lock released when the tab closed');
    expect(other.problems).toEqual([]);
  }, 90_000);

  it('renews the lock while the moderator is active, so a decision after the first expiry still holds', async () => {
    // `quick` has no routing rule: send the item there with a job in default and a TRANSFORM.
    await reportPosts('lock', 1);
    const moderator = world.sessions['MODERATOR']!;
    // The job skipped in the first test is not offered to this moderator again for a while: the
    // claim answers 204 until the new report is routed.
    const claimed = await waitFor(async () => {
      const response = await world.call(moderator, 'POST', '/api/console/v1/queues/default/claim');
      return response.status === 200 ? ((await response.json()) as { job: { jobId: string }; lock: { token: string } }) : undefined;
    }, 'a job of default claimed');
    const moved = await world.call(moderator, 'POST', `/api/console/v1/jobs/${claimed.job.jobId}/decision`, {
      lockToken: claimed.lock.token,
      type: 'TRANSFORM_JOB_AND_RECREATE_IN_QUEUE',
      targetQueueId: 'quick',
    });
    expect(moved.status).toBe(200);
    await waitFor(async () => (await pending('quick'))?.pending === 1 || undefined, 'the job recreated in quick');

    const { page, problems } = await openPage(browser);
    await signIn(page, world.warden.url, 'moderator@rev.example', REVIEW_PASSWORD);
    await page.goto(`${world.warden.url}/console/review/quick`);
    const timer = page.getByRole('timer');
    await timer.waitFor();
    const firstExpiry = (await timer.getAttribute('data-expires-at'))!;
    // Activity (the pointer moving) while the lock runs low renews it.
    const renewed = await waitFor(
      async () => {
        await page.mouse.move(100 + Math.random() * 400, 100 + Math.random() * 300);
        const now = await timer.getAttribute('data-expires-at');
        return now !== firstExpiry && Date.parse(now!) > Date.parse(firstExpiry) ? now : undefined;
      },
      { what: 'the lock renewed', timeoutMs: 30_000 },
    );
    expect(Date.parse(renewed)).toBeGreaterThan(Date.parse(firstExpiry));
    await waitFor(
      async () => {
        await page.mouse.move(100 + Math.random() * 400, 100 + Math.random() * 300);
        return Date.now() > Date.parse(firstExpiry) + 500 || undefined;
      },
      { what: 'the first expiry passed', timeoutMs: 30_000 },
    );
    await page.getByRole('radio', { name: 'Ignore' }).check();
    await page
      .getByRole('button', { name: /Ignore/ })
      .last()
      .click();
    await page.getByText('No job is waiting in this queue.').waitFor();
    expect(problems).toEqual([]);
  }, 120_000);

  it("shows media as the organization says, remembers a moderator's own blur, and suggests a break after the set number of items", async () => {
    await reportPosts('well', 3, 'spam');
    await waitFor(async () => (await pending('spam'))?.pending === 3 || undefined, 'three jobs in spam');
    const { page, problems } = await openPage(browser);
    await signIn(page, world.warden.url, 'moderator@rev.example', REVIEW_PASSWORD);
    await page.goto(`${world.warden.url}/console/review/spam`);
    const image = page.locator('.media img');
    await image.waitFor();
    // Organization: strongest blur, no greyscale.
    expect(await computedStyle(image, 'filter')).toBe('blur(28px)');
    expect(await page.getByLabel('Blur').inputValue()).toBe('3');
    await page.getByLabel('Blur').selectOption({ label: 'Light' });
    await page.getByLabel('Greyscale').check();
    expect(await computedStyle(image, 'filter')).toBe('blur(6px) grayscale(1)');
    // The second item with media reaches breakAfterItems: 2.
    await page.getByRole('radio', { name: 'Ignore' }).check();
    await page
      .getByRole('button', { name: /Ignore/ })
      .last()
      .click();
    await page.getByText(/You have looked at 2 items with media/).waitFor();
    await page.getByRole('button', { name: 'I took a break' }).click();
    // The override is remembered for this user in this browser: a new page load keeps it.
    await page.reload();
    await image.waitFor();
    expect(await computedStyle(image, 'filter')).toBe('blur(6px) grayscale(1)');
    await page.getByRole('button', { name: 'Use organization default' }).click();
    expect(await computedStyle(image, 'filter')).toBe('blur(28px)');
    // Signing out with a job on screen gives its lock back first.
    await waitFor(async () => (await pending('spam'))?.locked === 1 || undefined, 'the job on screen locked');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
    await waitFor(async () => (await pending('spam'))?.locked === 0 || undefined, 'the lock given back at sign-out');
    expect(problems).toEqual([]);
  }, 90_000);
});
