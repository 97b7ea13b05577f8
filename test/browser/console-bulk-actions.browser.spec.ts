import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, openPage, screenshot, signIn } from '../support/browser.js';
import { REVIEW_PASSWORD, type ReviewWorld, reviewOrgConfig, startReceiver, startReviewWorld } from '../support/review-fixture.js';
import { waitFor } from '../support/wait-for.js';

const COUNT = 2000;

/**
 * Issue 34, item 3: a manager acts on 2,000 items at once from the console: pastes the ids, picks
 * the action, a policy and a reason, sees the preview, confirms, watches the progress to the end;
 * the platform receives one callback per item. A MODERATOR has no such page.
 */
describe('the console: bulk actions (browser)', () => {
  let world: ReviewWorld;
  let browser: Browser;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const ids = Array.from({ length: COUNT }, (_, i) => `bulk-${i}`);

  beforeAll(async () => {
    receiver = await startReceiver();
    [world, browser] = await Promise.all([startReviewWorld(reviewOrgConfig(receiver.url), ['MODERATOR_MANAGER', 'MODERATOR']), launchChromium()]);
    // The batch submit endpoint, 500 items a request.
    for (let i = 0; i < COUNT; i += 500) {
      const items = ids
        .slice(i, i + 500)
        .map((id, k) => ({ id, typeId: 'post', data: { text: `post ${id}`, author: { id: `u${(i + k) % 13}`, typeId: 'user' } } }));
      const response = await world.api('POST', '/api/v1/items/async', { items });
      expect(response.status, await response.clone().text()).toBe(202);
    }
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await world?.warden.stop();
    await receiver?.close();
  });

  /** Distinct deliveries received at the remove hook (a retry arrives again under its id), by item. */
  const delivered = () => {
    const byDelivery = new Map<string, string>();
    for (const r of receiver.received) {
      if (r.path === '/hooks/remove') byDelivery.set(String(r.headers['service-delivery-id']), (JSON.parse(r.body) as { item: { id: string } }).item.id);
    }
    return byDelivery;
  };

  it('a bulk action over 2,000 ids: preview, confirmation, progress to the end, exactly 2,000 callbacks', async () => {
    const { page, context, problems } = await openPage(browser);
    await signIn(page, world.warden.url, 'moderator_manager@rev.example', REVIEW_PASSWORD);
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Bulk actions' }).click();
    await page.getByRole('heading', { name: 'Act on many items' }).waitFor();
    await page.getByRole('combobox', { name: /^Action/ }).selectOption({ label: 'Remove' });
    // As a paste puts it there: the value set at once and one input event (typing 2,000 lines would take minutes).
    await page.getByLabel('Item ids').evaluate((element, text) => {
      const g = globalThis as unknown as { HTMLTextAreaElement: { prototype: object }; Event: new (type: string, init: object) => object };
      Object.getOwnPropertyDescriptor(g.HTMLTextAreaElement.prototype, 'value')!.set!.call(element, text);
      (element as unknown as { dispatchEvent(e: object): void }).dispatchEvent(new g.Event('input', { bubbles: true }));
    }, ids.join('\n'));
    await page.getByText(`${COUNT} ids.`).waitFor();
    await page.getByRole('checkbox', { name: 'Spam' }).check();
    await page.getByLabel('Reason').fill('Spam campaign');
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.getByRole('heading', { name: `${COUNT} new actions on ${COUNT} existing items` }).waitFor();

    await page.getByRole('button', { name: `Execute on ${COUNT} items` }).click();
    await page.getByRole('button', { name: 'Execute', exact: true }).click();
    await page.waitForURL(/\/console\/bulk-actions\/blk_/);
    const progress = page.getByRole('progressbar');
    await progress.waitFor();
    expect(await progress.getAttribute('max')).toBe(String(COUNT));
    // The progress shown while it runs, read as it moves, until the page says it completed.
    const seen = new Set<string>();
    await waitFor(
      async () => {
        seen.add((await page.locator('.bulk-progress').textContent()) ?? '');
        return (await page.getByRole('heading', { name: `Completed: remove on ${COUNT} items` }).count()) > 0;
      },
      { what: 'the bulk action completed on the page', timeoutMs: 120_000, intervalMs: 100 },
    );
    expect(await page.locator('.bulk-progress').textContent()).toBe(`${COUNT} of ${COUNT} processed`);
    expect([...seen].some((text) => /^\d+ of 2000 processed$/.test(text))).toBe(true);
    await screenshot(page, 'bulk-actions');

    await waitFor(() => delivered().size >= COUNT, { what: `${COUNT} callbacks`, timeoutMs: 120_000, intervalMs: 200 });
    // A later single execution's callback: what the bulk action sent has arrived by then.
    expect((await world.api('POST', '/api/v1/actions', { actionId: 'remove', itemId: 'marker', itemTypeId: 'post' })).status).toBe(202);
    await waitFor(() => [...delivered().values()].includes('marker'), 'the marker callback');
    const items = [...delivered().values()].filter((id) => id !== 'marker');
    expect(items).toHaveLength(COUNT);
    expect(new Set(items)).toEqual(new Set(ids));
    expect(problems).toEqual([]);
    await context.close();
  }, 240_000);

  it('a MODERATOR sees no Bulk actions page', async () => {
    const { page, context, problems } = await openPage(browser);
    await signIn(page, world.warden.url, 'moderator@rev.example', REVIEW_PASSWORD);
    const nav = page.getByRole('navigation', { name: 'Console' });
    await nav.getByRole('link', { name: 'Queues' }).waitFor();
    expect(await nav.getByRole('link', { name: 'Bulk actions' }).count()).toBe(0);
    await page.goto(`${world.warden.url}/console/bulk-actions`);
    await page.getByRole('heading', { name: 'No access' }).waitFor();
    expect(await page.getByRole('heading', { name: 'Act on many items' }).count()).toBe(0);
    expect(problems).toEqual([]);
    await context.close();
  });
});
