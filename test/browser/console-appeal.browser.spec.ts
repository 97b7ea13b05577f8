import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, openPage, screenshot, signIn } from '../support/browser.js';
import { isSignedByWarden } from '../support/callback-signature.js';
import { loggedEvents } from '../support/config-files.js';
import {
  REVIEW_PASSWORD,
  type ReceivedCallback,
  reviewOrgConfig,
  type ReviewWorld,
  signInUsers,
  startReceiver,
  startReviewWorld,
} from '../support/review-fixture.js';
import { waitFor } from '../support/wait-for.js';

/**
 * Issue 15: an appeal decided in a real Chromium. One moderator removes a post through the
 * console; the platform appeals; another moderator (the first is excluded from appeals of their
 * own decisions) opens the Appeals queue, reads the appeal and accepts it; the platform's
 * receiver gets the signed appeal decision callback.
 */

type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** The organization's appeal decisions go to the platform's /hooks/appeals. */
const appealsConfig = (receiverUrl: string) => `
appeals:
  callback: { url: ${receiverUrl}/hooks/appeals }
  body: { source: warden }
`;

const bodyOf = (callback: ReceivedCallback) => JSON.parse(callback.body) as Record<string, unknown>;

/** Waits until the queue's row says `pending` jobs wait, refreshing as a moderator would. */
async function waitForPending(page: Page, queueName: string, pending: string): Promise<void> {
  const row = page.getByRole('row', { name: new RegExp(queueName) });
  await waitFor(async () => {
    await page.getByRole('button', { name: 'Refresh' }).click();
    return (await row.getByRole('cell').first().textContent()) === pending || undefined;
  }, `${pending} pending in the ${queueName} queue`);
}

async function signOut(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
}

describe('the review console: a moderator accepts an appeal (browser)', () => {
  let receiver: Receiver;
  let world: ReviewWorld;
  let browser: Browser;
  let secondId: string;

  beforeAll(async () => {
    receiver = await startReceiver();
    [world, browser] = await Promise.all([
      startReviewWorld(reviewOrgConfig(receiver.url, appealsConfig(receiver.url)), ['MODERATOR', 'ADMIN']),
      launchChromium(),
    ]);
    // second-0@rev.example: a moderator who did not take the appealed decision.
    const [second] = await signInUsers(world, world.sessions['ADMIN']!, 'MODERATOR', 1, 'second');
    secondId = second!.userId;
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await world?.warden.stop();
    await receiver?.close();
  });

  it('removes a post in the console, the platform appeals, another moderator reads the appeal and accepts it; the platform gets a signed ACCEPT', async () => {
    const submitted = await world.api('POST', '/api/v1/items/async', {
      items: [{ id: 'p-appealed', typeId: 'post', data: { text: 'please review me: cheap watches', author: { id: 'author-1', typeId: 'user' } } }],
    });
    expect(submitted.status).toBe(202);

    const { page, problems } = await openPage(browser);

    // The first moderator removes the post for spam.
    await signIn(page, world.warden.url, 'moderator@rev.example', REVIEW_PASSWORD);
    await page.getByRole('heading', { name: 'Queues' }).waitFor();
    await waitForPending(page, 'Default', '1');
    await page.getByRole('link', { name: 'Start reviewing Default' }).click();
    await page.getByRole('heading', { name: /Post/ }).waitFor();
    const removal = page.getByRole('form', { name: 'Decision' });
    await removal.getByLabel('Remove').check();
    await removal.getByLabel('Spam').check();
    await removal.getByLabel(/^Reason/).fill('Spam: watch adverts');
    await removal.getByRole('button', { name: /Take action/ }).click();
    await page.getByText('No job is waiting in this queue.').waitFor();
    await waitFor(() => receiver.received.find((c) => c.path === '/hooks/remove'), 'the remove callback at the platform');
    await signOut(page);

    // The author appeals through the platform.
    const appealed = await world.api('POST', '/api/v1/report/appeal', {
      appealId: 'ap-1',
      appealedBy: { id: 'author-1', typeId: 'user' },
      appealedAt: '2026-03-02T09:30:00Z',
      actionedItem: { id: 'p-appealed', typeId: 'post', data: { text: 'please review me: cheap watches', author: { id: 'author-1', typeId: 'user' } } },
      actionsTaken: ['remove'],
      appealReason: 'I sell these watches legally, it is my own shop',
      violatingPolicies: [{ id: 'spam' }],
    });
    expect(appealed.status).toBe(204);

    // Another moderator opens the Appeals queue and reads the appeal.
    await signIn(page, world.warden.url, 'second-0@rev.example', REVIEW_PASSWORD);
    await page.getByRole('heading', { name: 'Queues' }).waitFor();
    await waitForPending(page, 'Appeals', '1');
    await page.getByRole('link', { name: 'Start reviewing Appeals' }).click();
    const appeal = page.getByRole('region', { name: 'Appeal', exact: true });
    await appeal.waitFor();
    expect(await appeal.textContent()).toContain('Appealed');
    expect(await appeal.textContent()).toContain('user/author-1');
    expect(await appeal.locator('.quote').textContent()).toBe('I sell these watches legally, it is my own shop');
    expect(await appeal.textContent()).toContain('Policies said to be violated: Spam');
    // The action taken, with the callback that carried it out.
    expect(await appeal.getByRole('listitem').allTextContents()).toEqual([expect.stringMatching(/^Remove: 1 callback/)]);

    // An appeal job offers only an appeal's outcomes: the server refuses every other type on it.
    const panel = page.getByRole('form', { name: 'Decision' });
    expect(await panel.getByRole('radio').evaluateAll((radios) => radios.map((r) => r.getAttribute('value')))).toEqual(['ACCEPT_APPEAL', 'REJECT_APPEAL']);
    // The shortcuts are the appeal's: r and a choose the outcome from the keyboard.
    const shortcuts = page.getByRole('region', { name: 'Keyboard shortcuts' });
    expect(await shortcuts.locator('dd').allTextContents()).toEqual(expect.arrayContaining(['Accept appeal', 'Reject appeal']));
    expect(await shortcuts.locator('dd').allTextContents()).not.toContain('Ignore');
    await page.keyboard.press('r');
    expect(await panel.getByRole('radio', { name: 'Reject appeal' }).isChecked()).toBe(true);
    await page.keyboard.press('a');
    expect(await panel.getByRole('radio', { name: 'Accept appeal' }).isChecked()).toBe(true);
    // The appeal callback carries the outcome only: the console does not promise the reason reaches the platform.
    expect(await panel.getByText('— recorded, not sent to the platform').count()).toBe(1);
    await panel.getByLabel(/^Reason/).fill('A legitimate shop: not spam');
    await screenshot(page, 'appeal');
    await panel.getByRole('button', { name: /Accept appeal/ }).click();
    await page.getByText('No job is waiting in this queue.').waitFor();

    const callback = await waitFor(() => receiver.received.find((c) => c.path === '/hooks/appeals'), 'the appeal decision callback at the platform');
    expect(bodyOf(callback)).toEqual({
      appealId: 'ap-1',
      item: { id: 'p-appealed', typeId: 'post', typeName: 'Post' },
      appealedBy: { id: 'author-1', typeId: 'user' },
      appealDecision: 'ACCEPT',
      custom: { source: 'warden' },
    });
    expect(await isSignedByWarden(world.warden.url, world.key, callback.headers, callback.body)).toBe(true);
    const decided = loggedEvents(world.dataDir, 'AppealDecided').find((e) => e.data['appealId'] === 'ap-1');
    expect(decided?.data).toMatchObject({ decision: 'ACCEPT', decidedBy: { userId: secondId } });
    expect(problems).toEqual([]);
  }, 120_000);
});
