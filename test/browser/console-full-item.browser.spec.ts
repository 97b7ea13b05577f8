import { createServer, type Server } from 'node:http';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, openPage, reviewTheDefaultQueue, signIn } from '../support/browser.js';
import { REVIEW_PASSWORD, reviewOrgConfig, type ReviewWorld, startReviewWorld } from '../support/review-fixture.js';

/**
 * Issue 32: the job view's "Load full item" (docs/partial-items.md) in a real Chromium. A post sent
 * partial (its text only) is reported into the default queue; the moderator opens the job, clicks
 * "Load full item", and what the platform's partial-items endpoint (a real server on loopback)
 * holds appears: the post's other fields with its type version, and its author, never received.
 */

/** What the platform holds, whole: `typeId/id` → the item as its endpoint answers it. */
const HELD: Record<string, { typeVersion: string; data: Record<string, unknown> }> = {
  'post/fp-1': { typeVersion: '3', data: { text: 'Is this allowed?', author: { id: 'fu-1', typeId: 'user' }, createdAt: '2026-11-20T10:00:00Z' } },
  'user/fu-1': { typeVersion: '1', data: { name: 'Frieda Full' } },
};

describe('the review console: "Load full item" of a partial item (browser)', () => {
  const asked: Array<{ reason: string; items: string[] }> = [];
  let endpoint: Server;
  let world: ReviewWorld;
  let browser: Browser;

  beforeAll(async () => {
    endpoint = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        const request = JSON.parse(body) as { reason: string; items: Array<{ id: string; typeId: string }> };
        asked.push({ reason: request.reason, items: request.items.map((i) => `${i.typeId}/${i.id}`) });
        const known = request.items.filter((i) => HELD[`${i.typeId}/${i.id}`]);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            items: known.map((i) => ({ id: i.id, typeId: i.typeId, ...HELD[`${i.typeId}/${i.id}`] })),
            notFound: request.items.filter((i) => !known.includes(i)),
          }),
        );
      });
    });
    await new Promise<void>((r) => endpoint.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(endpoint.address() as { port: number }).port}`;
    // The endpoint is on loopback: the tests' outbound allowlist (127.0.0.0/8) lets Warden call it, as it does callbacks.
    [world, browser] = await Promise.all([
      startReviewWorld(reviewOrgConfig(url, `partialItems: { url: ${url}/warden/items, timeoutMs: 2000, cacheSeconds: 60 }\n`), ['MODERATOR']),
      launchChromium(),
    ]);
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await world?.warden.stop();
    await new Promise((r) => endpoint?.close(r));
  });

  it('a moderator opens the job of a partial post, clicks "Load full item", and sees the whole post and its author as the platform holds them', async () => {
    const reported = await world.api('POST', '/api/v1/report', {
      reporter: { kind: 'user', id: 'reporter-1', typeId: 'user' },
      reportedAt: '2026-11-27T09:00:00Z',
      reportedItem: { id: 'fp-1', typeId: 'post', typeSchemaVariant: 'partial', data: { text: 'Is this allowed?' } },
      reportedForReason: { reason: 'Looks off', policyId: 'spam' },
    });
    expect(reported.status, await reported.clone().text()).toBe(201);

    const { page, problems } = await openPage(browser);
    await signIn(page, world.warden.url, 'moderator@rev.example', REVIEW_PASSWORD);
    await reviewTheDefaultQueue(page);
    await page.getByText('Looks off').waitFor();

    // The job shows what was sent: the text only, marked partial. Its rules were decided on the
    // text, so nothing was asked of the platform yet.
    await page.locator('.job-head').getByText('partial', { exact: true }).waitFor();
    const item = page.getByRole('region', { name: 'Item' });
    expect(await item.locator('dt').allTextContents()).toEqual(['text']);
    expect(asked).toEqual([]);

    await item.getByRole('button', { name: 'Load full item' }).click();
    const full = page.getByRole('region', { name: 'Full item' });
    await full.waitFor();
    // The post as the platform holds it (recorded as version 1, type version 3) and its author.
    expect(await full.textContent()).toMatch(/Version 1 · type version 3 · fetched now/);
    const post = full.locator('dl').first();
    expect(await post.locator('dt').allTextContents()).toEqual(['text', 'author (creator)', 'createdAt (createdat)']);
    expect(await post.locator('dd').allTextContents()).toEqual(['Is this allowed?', 'user fu-1', '2026-11-20T10:00:00Z']);
    await full.getByRole('heading', { name: 'author: user fu-1' }).waitFor();
    expect(await full.locator('dl').nth(1).textContent()).toBe('nameFrieda Full');
    expect(asked).toEqual([
      { reason: 'console', items: ['post/fp-1'] },
      { reason: 'related-item', items: ['user/fu-1'] },
    ]);
    expect(problems).toEqual([]);
  }, 90_000);
});
