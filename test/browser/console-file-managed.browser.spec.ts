import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, openPage, signIn } from '../support/browser.js';
import { REVIEW_PASSWORD, reviewOrgConfig, type ReviewWorld, startReceiver, startReviewWorld } from '../support/review-fixture.js';

/**
 * Issue 30 item 17: the console marks what the organization's configuration file manages and
 * does not offer to change it (the queue's Edit button, the SSO form), saying why.
 */
describe('the console and the configuration file (browser)', () => {
  let world: ReviewWorld;
  let browser: Browser;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    receiver = await startReceiver();
    [world, browser] = await Promise.all([startReviewWorld(reviewOrgConfig(receiver.url), ['ADMIN']), launchChromium()]);
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await world?.warden.stop();
    await receiver?.close();
  });

  const open = async (path: string) => {
    const opened = await openPage(browser);
    await signIn(opened.page, world.warden.url, 'admin@rev.example', REVIEW_PASSWORD);
    await opened.page.goto(`${world.warden.url}/console${path}`);
    return opened;
  };

  it("shows the file's queues with its badge and their Edit disabled, naming the file; a console-made queue stays editable", async () => {
    const created = await world.call(world.sessions['ADMIN']!, 'POST', '/api/console/v1/queues', { name: 'Console made' });
    expect(created.status).toBe(201);
    const { page, context } = await open('/queue-settings');
    const spam = page.getByRole('row', { name: /Spam reports/ });
    await spam.waitFor();
    expect(await spam.getByRole('rowheader').textContent()).toContain('File: config.yaml');
    const edit = spam.getByRole('button', { name: 'Edit queue Spam reports' });
    expect(await edit.isDisabled()).toBe(true);
    expect(await edit.getAttribute('title')).toContain('managed by the configuration file config.yaml');
    expect(await page.locator('#file-managed-queues').textContent()).toContain('management: { queues: console }');
    const own = page.getByRole('row', { name: /Console made/ });
    expect(await own.getByRole('rowheader').textContent()).toContain('Console');
    expect(await own.getByRole('button', { name: 'Edit queue Console made' }).isDisabled()).toBe(false);
    await context.close();
  }, 90_000);

  it('shows the SSO settings the file set as read-only, saying which file to change', async () => {
    const { page, context } = await open('/sso');
    const note = page.locator('#sso-file-managed');
    await note.waitFor();
    expect(await note.textContent()).toContain('managed by the configuration file config.yaml');
    expect(await page.getByRole('button', { name: 'Save SSO settings' }).isDisabled()).toBe(true);
    expect(await page.getByLabel('IdP SSO URL (HTTP-Redirect binding)').isDisabled()).toBe(true);
    await context.close();
  }, 90_000);
});
