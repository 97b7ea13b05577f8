import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, openPage, signIn } from '../support/browser.js';
import { REVIEW_PASSWORD, type ReviewWorld, startReceiver, startReviewWorld } from '../support/review-fixture.js';
import { transparencyConfig } from '../support/transparency-fixture.js';
import { waitFor } from '../support/wait-for.js';

/**
 * Issue 33: the console shows where a statement of reasons' submission to the DSA Transparency
 * Database stands, on the job view and the item view, and offers the transparency report of a
 * chosen period as a download (JSON and CSV).
 */
describe('the console: statements of reasons and the transparency report (browser)', () => {
  let world: ReviewWorld;
  let browser: Browser;
  let callbacks: Awaited<ReturnType<typeof startReceiver>>;
  let database: Server;
  let jobId: string;
  const today = new Date().toISOString().slice(0, 10);

  beforeAll(async () => {
    callbacks = await startReceiver();
    // The Transparency Database's multiple endpoint: creates every batch.
    database = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(201, { 'content-type': 'application/json' }).end('{"statements":[]}'));
    });
    await new Promise<void>((r) => database.listen(0, '127.0.0.1', r));
    const dbUrl = `http://127.0.0.1:${(database.address() as AddressInfo).port}/api/v1/statements`;
    [world, browser] = await Promise.all([
      startReviewWorld(
        transparencyConfig(callbacks.url, `\n  submission: { url: "${dbUrl}", token: "\${DSA_TOKEN}" }`),
        ['ADMIN', 'ANALYST', 'EXTERNAL_MODERATOR'],
        {
          DSA_TOKEN: 'browser-token',
        },
      ),
      launchChromium(),
    ]);
    // A rule removes the post (a statement of reasons); a report of it opens a job.
    const post = { id: 'p-pills', typeId: 'post', data: { text: 'cheap pills', author: { id: 'seller-1', typeId: 'user' } } };
    expect((await world.api('POST', '/api/v1/items/async', { items: [post] })).status).toBe(202);
    await waitFor(
      async () => {
        const r = await world.call(world.sessions['ADMIN']!, 'GET', '/api/console/v1/transparency/items/post/p-pills/statements');
        const body = (await r.json()) as { statements: Array<{ submission: { state: string } }> };
        return body.statements[0]?.submission.state === 'submitted' || undefined;
      },
      { what: "the rule's statement submitted", timeoutMs: 30_000, intervalMs: 200 },
    );
    const reported = await world.api('POST', '/api/v1/report', {
      reporter: { kind: 'user', id: 'reporter-1', typeId: 'user' },
      reportedAt: new Date().toISOString(),
      reportedItem: post,
      reportedForReason: { policyId: 'spam', reason: 'still up?' },
    });
    expect(reported.status).toBe(201);
    jobId = await waitFor(async () => {
      const r = await world.call(world.sessions['ADMIN']!, 'GET', '/api/console/v1/jobs?queueId=default&state=PENDING');
      return ((await r.json()) as { jobs: Array<{ jobId: string }> }).jobs[0]?.jobId;
    }, 'the report job');
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await world?.warden.stop();
    await callbacks?.close();
    await new Promise((r) => database?.close(r));
  });

  it("shows the statement's submission state on the job view and on the item view", async () => {
    const { page, context, problems } = await openPage(browser);
    await signIn(page, world.warden.url, 'admin@rev.example', REVIEW_PASSWORD);
    await page.goto(`${world.warden.url}/console/jobs/${jobId}`);
    const actions = page.getByRole('list', { name: 'Actions on this item' });
    await actions.waitFor();
    const tag = actions.locator('[data-state]');
    await tag.waitFor();
    expect(await tag.getAttribute('data-state')).toBe('submitted');
    expect(await actions.textContent()).toContain('statement of reasons submitted');

    await page.getByRole('link', { name: 'Statements of reasons of this item' }).click();
    await page.getByRole('heading', { name: /Item post p-pills/ }).waitFor();
    const row = page.getByRole('row').filter({ hasText: 'remove' });
    await row.waitFor();
    expect(await row.locator('[data-state]').getAttribute('data-state')).toBe('submitted');
    expect(await row.textContent()).toContain('STATEMENT_CATEGORY_SCAMS_AND_FRAUD');
    expect(problems).toEqual([]);
    await context.close();
  }, 90_000);

  it('downloads the report of a chosen period as JSON and as CSV, the figures the API gives', async () => {
    const { page, context, problems } = await openPage(browser);
    await signIn(page, world.warden.url, 'admin@rev.example', REVIEW_PASSWORD);
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Transparency', exact: true }).click();
    const period = page.getByRole('form', { name: 'Report period' });
    await period.getByLabel('From (UTC day)').fill(today);
    await period.getByLabel('To (UTC day)').fill(today);
    await period.getByRole('button', { name: 'Show period' }).click();
    await page.getByRole('heading', { name: `Report ${today} – ${today}` }).waitFor();
    expect(await page.getByRole('row').filter({ hasText: 'p-pills' }).locator('[data-state]').getAttribute('data-state')).toBe('submitted');

    const [json] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download report (JSON)' }).click()]);
    expect(json.suggestedFilename()).toBe(`transparency-report-${today}-${today}.json`);
    const downloaded = JSON.parse(readFileSync((await json.path())!, 'utf8')) as { from: string; actions: { total: number } };
    const api = (await (await world.call(world.sessions['ADMIN']!, 'GET', `/api/console/v1/transparency/report?from=${today}&to=${today}`)).json()) as unknown;
    expect(downloaded).toEqual(api);
    expect(downloaded.actions.total).toBe(1);

    const [csv] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download report (CSV)' }).click()]);
    expect(csv.suggestedFilename()).toBe(`transparency-report-${today}-${today}.csv`);
    const lines = readFileSync((await csv.path())!, 'utf8')
      .trimEnd()
      .split('\n');
    expect(lines[0]).toBe('section,policy,category,source,automated_detection,automated_decision,reporter_type,figure,value');
    expect(lines).toContain(`period,,,,,,,${today}..${today},`);
    expect(lines).toContain('actions,,,,,,,total,1');
    expect(lines).toContain('actions,spam,STATEMENT_CATEGORY_SCAMS_AND_FRAUD,own-initiative,true,true,,count,1');
    expect(problems).toEqual([]);
    await context.close();
  }, 90_000);

  // What a role may not open is not offered (docs/console.md): each of these answered 403 when followed.
  it("offers an analyst no item look-up or item links, and a view-only moderator no 'Start reviewing'", async () => {
    const { page, context, problems } = await openPage(browser);
    await signIn(page, world.warden.url, 'analyst@rev.example', REVIEW_PASSWORD);
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Transparency', exact: true }).click();
    await page.getByRole('row').filter({ hasText: 'p-pills' }).first().waitFor();
    expect(await page.getByRole('form', { name: 'Statements of an item' }).count()).toBe(0);
    expect(await page.getByRole('row').filter({ hasText: 'p-pills' }).getByRole('link').count()).toBe(0);
    await context.close();

    const external = await openPage(browser);
    await signIn(external.page, world.warden.url, 'external_moderator@rev.example', REVIEW_PASSWORD);
    await external.page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Queues', exact: true }).click();
    await external.page.getByRole('rowheader', { name: /default/ }).waitFor();
    expect(await external.page.getByRole('link', { name: /^Start reviewing/ }).count()).toBe(0);
    expect([...problems, ...external.problems]).toEqual([]);
    await external.context.close();
  }, 90_000);
});
