import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeConfig, loggedEvents } from '../support/config-files.js';
import { expectErrorBody } from '../support/error-body.js';
import { type ReviewWorld, reviewOrgConfig, startReceiver, startReviewWorld } from '../support/review-fixture.js';
import { runCli } from '../support/warden-process.js';

/** The file hands its queues to the console (issue 30 item 17: otherwise the console may not change the file's queues). */
const CONSOLE_MANAGED = 'management: { queues: console }\n';

/** Issue 13 item 8: queues created and changed from the console, recorded in the configuration history. */
describe('review queues from the console (e2e)', () => {
  let world: ReviewWorld;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    receiver = await startReceiver();
    world = await startReviewWorld(reviewOrgConfig(receiver.url, CONSOLE_MANAGED), ['MODERATOR', 'MODERATOR_MANAGER', 'ADMIN']);
  }, 90_000);

  afterAll(async () => {
    await world?.warden.stop();
    await receiver?.close();
  });

  const as = (role: string) => world.sessions[role]!;

  it('refuses a MODERATOR (403) and records nothing', async () => {
    const before = loggedEvents(world.dataDir, 'QueueDefined').length;
    await expectErrorBody(await world.call(as('MODERATOR'), 'POST', '/api/console/v1/queues', { name: 'Nope' }), 403, '/errors/forbidden');
    await expectErrorBody(await world.call(as('MODERATOR'), 'PUT', '/api/console/v1/queues/spam', { name: 'Nope' }), 403, '/errors/forbidden');
    expect(loggedEvents(world.dataDir, 'QueueDefined')).toHaveLength(before);
  });

  it('a MODERATOR_MANAGER creates a queue: recorded with the actor, and claimable at once (204: empty)', async () => {
    const created = await world.call(as('MODERATOR_MANAGER'), 'POST', '/api/console/v1/queues', {
      name: 'Hate speech',
      order: 'PRIORITY',
      lockTimeoutSeconds: 120,
    });
    expect(created.status, await created.clone().text()).toBe(201);
    expect(await created.json()).toEqual({
      id: 'hate-speech',
      name: 'Hate speech',
      isDefault: false,
      isAppealsDefault: false,
      lockTimeoutSeconds: 120,
      order: 'PRIORITY',
      autoCloseAfterDays: null,
    });
    const recorded = loggedEvents(world.dataDir, 'QueueDefined').at(-1)!;
    expect(recorded.data).toMatchObject({ kind: 'queue', entity: { id: 'hate-speech' } });
    expect(recorded.metadata['actor']).toBe(`user:${world.userIds['MODERATOR_MANAGER']}`);
    const claim = await world.call(as('MODERATOR'), 'POST', '/api/console/v1/queues/hate-speech/claim');
    expect(claim.status).toBe(204);
    expect(await claim.text()).toBe('');
  });

  it('an ADMIN replaces a queue with PUT; the same again records nothing', async () => {
    const change = { name: 'Spam (urgent)', order: 'FIFO', autoCloseAfterDays: 14 };
    const updated = await world.call(as('ADMIN'), 'PUT', '/api/console/v1/queues/spam', change);
    expect(updated.status, await updated.clone().text()).toBe(200);
    expect(await updated.json()).toMatchObject({ id: 'spam', ...change, lockTimeoutSeconds: 600 });
    const count = loggedEvents(world.dataDir, 'QueueDefined').length;
    expect((await world.call(as('ADMIN'), 'PUT', '/api/console/v1/queues/spam', change)).status).toBe(200);
    expect(loggedEvents(world.dataDir, 'QueueDefined')).toHaveLength(count);
  });

  it('answers bad input with pointers, an unknown queue with 404 and an existing id with 409, recording nothing', async () => {
    const before = loggedEvents(world.dataDir, 'QueueDefined').length;
    const manager = as('MODERATOR_MANAGER');
    await expectErrorBody(
      await world.call(manager, 'POST', '/api/console/v1/queues', { id: 'child-safety', name: 'Mine' }),
      400,
      '/errors/invalid-user-input',
      '/id',
    );
    await expectErrorBody(
      await world.call(manager, 'POST', '/api/console/v1/queues', { name: 'X', lockTimeoutSeconds: 0 }),
      400,
      '/errors/invalid-user-input',
      '/lockTimeoutSeconds',
    );
    await expectErrorBody(
      await world.call(manager, 'POST', '/api/console/v1/queues', { name: 'X', order: 'LIFO' }),
      400,
      '/errors/invalid-user-input',
      '/order',
    );
    await expectErrorBody(await world.call(manager, 'POST', '/api/console/v1/queues', { lockTimeoutSeconds: 60 }), 400, '/errors/invalid-user-input');
    // The fixture's `default` queue is the default: a second one is refused at the flag.
    await expectErrorBody(
      await world.call(manager, 'POST', '/api/console/v1/queues', { name: 'Other', isDefault: true }),
      400,
      '/errors/invalid-user-input',
      '/isDefault',
    );
    await expectErrorBody(await world.call(manager, 'PUT', '/api/console/v1/queues/nope', { name: 'Nope' }), 404, '/errors/not-found');
    await expectErrorBody(await world.call(manager, 'POST', '/api/console/v1/queues', { id: 'spam', name: 'Spam' }), 409, '/errors/conflict');
    expect(loggedEvents(world.dataDir, 'QueueDefined')).toHaveLength(before);
  });

  it('apply --dry-run of the original file shows the drift: the console-managed queues are left as the console set them', async () => {
    const dryRun = await runCli(['apply', '--dry-run', writeConfig(reviewOrgConfig(receiver.url, CONSOLE_MANAGED))], world.env);
    expect(dryRun.code, dryRun.stderr).toBe(0);
    expect(dryRun.stdout).toContain('drift: queue spam changed in the console; would be left as the console set it (management.queues: console)');
    expect(dryRun.stdout).toContain('drift: queue hate-speech changed in the console; would be left as the console set it (management.queues: console)');
    expect(dryRun.stdout).not.toContain('would update queue');
    // Handed back to the file: the file's queue overwrites the console's change.
    const fileManaged = await runCli(['apply', '--dry-run', writeConfig(reviewOrgConfig(receiver.url))], world.env);
    expect(fileManaged.stdout).toContain('would update queue spam');
    expect(fileManaged.stdout).toContain('drift: queue spam changed in the console; would be overwritten with the file');
    expect(fileManaged.stdout).toContain('left alone queue hate-speech (not in the file; --prune archives it)');
    expect(fileManaged.stdout).not.toContain('would update queue default');
  });
});
