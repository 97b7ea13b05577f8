import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loggedEvents, writeConfig } from '../support/config-files.js';
import { expectErrorBody } from '../support/error-body.js';
import { type ReviewWorld, reviewOrgConfig, startReceiver, startReviewWorld } from '../support/review-fixture.js';
import { runCli } from '../support/warden-process.js';

type QueueRow = { id: string; name: string; managedBy: string; file: string | null };

/**
 * Issue 30 item 17: configuration as code vs console edits. The file's queues and SSO settings are
 * marked as the file's and the console may not change them, unless the file hands the section to
 * the console; apply --dry-run lists what the console changed and what apply would do to it.
 */
describe('configuration file vs console edits (e2e)', () => {
  let world: ReviewWorld;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    receiver = await startReceiver();
    // startReviewWorld applies the file as config.yaml.
    world = await startReviewWorld(reviewOrgConfig(receiver.url), ['ADMIN']);
  }, 90_000);

  afterAll(async () => {
    await world?.warden.stop();
    await receiver?.close();
  });

  const admin = () => world.sessions['ADMIN']!;
  const queues = async (): Promise<Record<string, QueueRow>> => {
    const listed = await world.call(admin(), 'GET', '/api/console/v1/queues');
    expect(listed.status).toBe(200);
    const body = (await listed.json()) as { queues: QueueRow[] };
    return Object.fromEntries(body.queues.map((q) => [q.id, q]));
  };
  const apply = async (args: string[]) => {
    const run = await runCli(['apply', ...args], world.env);
    expect(run.code, run.stderr).toBe(0);
    return run.stdout;
  };

  it('marks the queues and SSO settings the file defined as managed by it, naming the file', async () => {
    const listed = await queues();
    expect(listed['spam']).toMatchObject({ managedBy: 'file', file: 'config.yaml' });
    expect(listed['child-safety']).toMatchObject({ managedBy: 'builtin', file: null });
    const sso = await world.call(admin(), 'GET', '/api/console/v1/sso');
    expect(await sso.json()).toMatchObject({ managedBy: 'file', file: 'config.yaml' });
  });

  it('refuses a console edit of a file-managed queue or of the SSO settings (409, naming the file) and records nothing', async () => {
    const before = loggedEvents(world.dataDir).length;
    const refused = await expectErrorBody(await world.call(admin(), 'PUT', '/api/console/v1/queues/spam', { name: 'Spam (console)' }), 409, '/errors/conflict');
    expect(refused['detail']).toMatch(/Queue spam is managed by the configuration file config\.yaml/);
    const sso = await expectErrorBody(await world.call(admin(), 'PUT', '/api/console/v1/sso', { passwordLogin: true }), 409, '/errors/conflict');
    expect(sso['detail']).toMatch(/SSO settings are managed by the configuration file config\.yaml/);
    expect(loggedEvents(world.dataDir)).toHaveLength(before);
  });

  it('with console management chosen in the file, accepts the edit, and apply --dry-run lists the drift', async () => {
    const consoleManaged = writeConfig(reviewOrgConfig(receiver.url, 'management: { queues: console }\n'), 'rev.yaml');
    expect(await apply([consoleManaged])).toContain('changed management settings');
    expect((await queues())['spam']).toMatchObject({ managedBy: 'console', file: 'config.yaml' });

    const edited = await world.call(admin(), 'PUT', '/api/console/v1/queues/spam', { name: 'Spam (console)' });
    expect(edited.status, await edited.clone().text()).toBe(200);
    const created = await world.call(admin(), 'POST', '/api/console/v1/queues', { name: 'Console only' });
    expect(created.status, await created.clone().text()).toBe(201);
    expect((await queues())['spam']).toMatchObject({ name: 'Spam (console)', managedBy: 'console', file: null });
    expect(loggedEvents(world.dataDir, 'QueueDefined').at(-1)!.data).toMatchObject({ source: { managedBy: 'console', file: null } });

    const kept = await apply(['--dry-run', '--prune', consoleManaged]);
    expect(kept).toContain('drift: queue spam changed in the console; would be left as the console set it (management.queues: console)');
    expect(kept).toContain('drift: queue console-only changed in the console; would be left as the console set it (management.queues: console)');
    expect(kept).not.toMatch(/would (update|archive) queue/);

    // The same file handing queues back to the file: what apply would then do to the console's changes.
    const fileManaged = writeConfig(reviewOrgConfig(receiver.url), 'rev.yaml');
    const taken = await apply(['--dry-run', '--prune', fileManaged]);
    expect(taken).toContain('drift: queue spam changed in the console; would be overwritten with the file');
    expect(taken).toContain('drift: queue console-only changed in the console; would be archived (not in the file, --prune)');
    expect(taken).toContain('would update queue spam');
    expect(taken).toContain('would archive queue console-only');
  });
});
