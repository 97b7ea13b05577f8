import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, openPage, screenshot, signIn } from '../support/browser.js';
import {
  authoredPost as post,
  claimNext,
  type ClaimedJob,
  decideClaimed,
  REVIEW_PASSWORD,
  reviewOrgConfig,
  type ReviewWorld,
  type Session,
  startReceiver,
  startReviewWorld,
  withAutoRemoveRule,
} from '../support/review-fixture.js';
import { waitFor } from '../support/wait-for.js';

/**
 * Issue 34, Insights: every chart drawn from the test's own history (items removed by a capped
 * rule, jobs decided by a moderator and a manager, an appeal overturned), each with its data table
 * and CSV, filters reachable and usable by keyboard, no console error; a moderator has no such page.
 */

/** Every chart of the page, by its data-chart id. */
const CHARTS = [
  'actions-by-source',
  'actions-by-policy',
  'queue-depth',
  'oldest-wait',
  'time-to-decision-by-queue',
  'time-to-decision-by-day',
  'decisions-by-moderator',
  'overturns-policy',
  'overturns-rule',
  'automation',
  'rule-actions',
];

/** Whether the chart's canvas has anything drawn on it (the tests compile without the DOM's types). */
const drawn = (page: Page, chart: string) =>
  page.locator(`[data-chart="${chart}"] canvas`).evaluate((element) => {
    const canvas = element as unknown as {
      width: number;
      height: number;
      getContext(kind: '2d'): { getImageData(...a: number[]): { data: Uint8ClampedArray } };
    };
    if (canvas.width === 0 || canvas.height === 0) return false;
    const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    for (let i = 3; i < pixels.length; i += 4) if (pixels[i]! > 0) return true;
    return false;
  });

describe('the console: Insights (browser)', () => {
  let world: ReviewWorld;
  let browser: Browser;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const today = new Date().toISOString().slice(0, 10);

  const claim = (session: Session, queue: string) => claimNext(world, session, queue);
  const decide = (session: Session, claimed: ClaimedJob, body: Record<string, unknown>) => decideClaimed(world, session, claimed, body);

  beforeAll(async () => {
    receiver = await startReceiver();
    [world, browser] = await Promise.all([
      // A capped rule that removes posts saying "auto-remove" under the violence policy.
      startReviewWorld(withAutoRemoveRule(reviewOrgConfig(receiver.url), 5), ['ADMIN', 'MODERATOR_MANAGER', 'MODERATOR']),
      launchChromium(),
    ]);
    const sent = await world.api('POST', '/api/v1/items/async', {
      items: [post('r-1', 'auto-remove me'), post('r-2', 'auto-remove this'), post('m-1', 'please review me'), post('m-2', 'review me again')],
    });
    expect(sent.status).toBe(202);
    // A user report of a third post opens a job too.
    const reported = await world.api('POST', '/api/v1/report', {
      reporter: { kind: 'user', id: 'reporter-1', typeId: 'user' },
      reportedAt: new Date().toISOString(),
      reportedItem: post('m-3', 'a reported post'),
      reportedForReason: { policyId: 'spam', reason: 'spam' },
    });
    expect(reported.status).toBe(201);
    const moderator = world.sessions['MODERATOR']!;
    const manager = world.sessions['MODERATOR_MANAGER']!;
    await waitFor(async () => {
      const r = await world.call(world.sessions['ADMIN']!, 'GET', '/api/console/v1/jobs?queueId=default&state=PENDING');
      return ((await r.json()) as { jobs: unknown[] }).jobs.length >= 2 || undefined;
    }, 'the review jobs');
    await decide(moderator, (await waitFor(() => claim(moderator, 'default'), 'a job for the moderator'))!, {
      type: 'CUSTOM_ACTION',
      actionIds: ['remove'],
      policyIds: ['spam'],
      reason: 'spam',
    });
    await decide(manager, (await waitFor(() => claim(manager, 'default'), 'a job for the manager'))!, { type: 'IGNORE' });
    await waitFor(() => receiver.received.filter((c) => c.path === '/hooks/remove').length >= 3 || undefined, 'the three removals');
    const appeal = await world.api('POST', '/api/v1/report/appeal', {
      appealId: 'ap-1',
      appealedBy: { id: 'author-of-r-1', typeId: 'user' },
      appealedAt: new Date().toISOString(),
      actionedItem: post('r-1', 'auto-remove me'),
      actionsTaken: ['remove'],
      appealReason: 'satire',
      violatingPolicies: [{ id: 'violence' }],
    });
    expect(appeal.status).toBe(204);
    const admin = world.sessions['ADMIN']!;
    await decide(admin, (await waitFor(() => claim(admin, 'appeals'), 'the appeal job'))!, { type: 'ACCEPT_APPEAL' });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await world?.warden.stop();
    await receiver?.close();
  });

  it('draws every chart from the history, with its table and CSV, filters by keyboard, and no console error', async () => {
    const { page, context, problems } = await openPage(browser);
    await signIn(page, world.warden.url, 'moderator_manager@rev.example', REVIEW_PASSWORD);
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Insights', exact: true }).click();
    await page.getByRole('heading', { name: 'Insights', level: 1 }).waitFor();
    for (const chart of CHARTS) {
      await page.locator(`[data-chart="${chart}"] canvas`).waitFor();
      expect(await waitFor(async () => (await drawn(page, chart)) || undefined, `the ${chart} chart drawn`)).toBe(true);
    }
    await screenshot(page, 'insights');

    // Each chart's figures as a table: the rule's overturn, the removals by source today.
    const overturns = page.locator('[data-chart="overturns-rule"]');
    await overturns.getByText('Data table').click();
    expect(await overturns.getByRole('row', { name: /Auto remove/ }).textContent()).toBe('Auto remove11100');
    const sources = page.locator('[data-chart="actions-by-source"]');
    await sources.getByText('Data table').click();
    expect(await sources.getByRole('row', { name: today }).textContent()).toBe(`${today}2100`);

    // And as CSV.
    const [csv] = await Promise.all([
      page.waitForEvent('download'),
      sources.getByRole('button', { name: 'Download CSV of Actions per day by source' }).click(),
    ]);
    expect(csv.suggestedFilename()).toMatch(/^insights-actions-by-source-\d{4}-\d{2}-\d{2}-\d{4}-\d{2}-\d{2}\.csv$/);
    const lines = readFileSync((await csv.path())!, 'utf8')
      .trimEnd()
      .split('\r\n');
    expect(lines[0]).toBe('Day,Rule,Moderator,Strike threshold,Executed by the platform');
    expect(lines).toContain(`${today},2,1,0,0`);

    // The filters by keyboard alone: Tab reaches each of them, the queue is chosen and applied with keys.
    await page.getByRole('heading', { name: 'Insights', level: 1 }).click();
    const reached: string[] = [];
    for (let i = 0; i < 12 && !reached.includes('BUTTON:Show'); i++) {
      await page.keyboard.press('Tab');
      reached.push(
        await page.evaluate(() => {
          const active = (
            globalThis as unknown as {
              document: { activeElement: { tagName: string; textContent: string | null; closest(s: string): { textContent: string | null } | null } };
            }
          ).document.activeElement;
          const label = active.closest('label')?.textContent ?? active.textContent ?? '';
          return `${active.tagName}:${label
            .trim()
            .split('\n')[0]!
            .replace(/Every queue.*/, '')
            .trim()}`;
        }),
      );
    }
    // A date field is three stops in Chromium (month, day, year): each field is named once.
    const fields = reached.filter((r, i) => /^(INPUT|SELECT|BUTTON):(From|To|Queue|Show)/.test(r) && r !== reached[i - 1]);
    expect(fields).toEqual(['INPUT:From (UTC day)', 'INPUT:To (UTC day)', 'SELECT:Queue', 'BUTTON:Show']);
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    const depth = page.locator('[data-chart="queue-depth"]');
    await waitFor(async () => ((await depth.locator('thead th').count()) === 2 ? true : undefined), 'the queue charts narrowed to one queue');
    expect(await depth.locator('thead th').nth(1).textContent()).toBe('Appeals');
    await depth.locator('canvas').waitFor();
    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);

  it('shows a moderator no Insights page, and the API answers 403', async () => {
    const { page, context, problems } = await openPage(browser);
    await signIn(page, world.warden.url, 'moderator@rev.example', REVIEW_PASSWORD);
    expect(await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Insights' }).count()).toBe(0);
    await page.goto(`${world.warden.url}/console/insights`);
    await page.getByRole('heading', { name: 'No access' }).waitFor();
    expect(await page.locator('[data-chart]').count()).toBe(0);
    const status = await page.evaluate(async () => (await fetch('/api/console/v1/insights')).status);
    expect(status).toBe(403);
    // The 403 the page itself asked for is the only error it logged.
    expect(problems.filter((p) => !p.includes('403'))).toEqual([]);
    await context.close();
  }, 60_000);
});
