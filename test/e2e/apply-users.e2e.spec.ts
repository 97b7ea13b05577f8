import { describe, expect, it } from 'vitest';
import { EXAMPLE, EXAMPLE_IDP_CERT, eventCount, exampleWith, rawLog, writeConfig } from '../support/config-files.js';
import { freshDataDir, runCli, runCliWithInput, testEnv } from '../support/warden-process.js';

const SECRETS = { ACME_HOOK_TOKEN: 'hook-token-s3cret', ACME_IDP_CERT: EXAMPLE_IDP_CERT };
const EXAMPLE_USERS = `users:
  - { email: admin@acme.example, roles: [ADMIN] }
  - { email: mod@acme.example, roles: [MODERATOR, CHILD_SAFETY_MODERATOR] }
`;

/** `warden apply`'s users section, through the CLI against a real store. */
describe('apply: dashboard users', () => {
  const setup = () => {
    const dataDir = freshDataDir();
    const env = testEnv(dataDir, SECRETS);
    const apply = async (file: string, ...flags: string[]) => {
      const result = await runCli(['apply', file, ...flags], env);
      expect(result.code, result.stderr).toBe(0);
      return result.stdout;
    };
    const users = async () => {
      const listed = await runCli(['user', 'list', '--org', 'acme'], env);
      expect(listed.code, listed.stderr).toBe(0);
      // One row per user after the header: id, email, roles, state.
      return Object.fromEntries(
        listed.stdout
          .trim()
          .split('\n')
          .slice(1)
          .filter((line) => !/^[-\s]+$/.test(line))
          .map((line) => line.trim().split(/\s+/))
          .map(([, email, roles, state]) => [email!, { roles: roles!, state: state! }]),
      );
    };
    return { dataDir, env, apply, users };
  };

  it("creates the file's users invited, with their roles; a second apply changes nothing", async () => {
    const { dataDir, apply, users } = setup();
    const first = await apply(EXAMPLE);
    expect(first).toContain('created user admin@acme.example (invited');
    expect(first).toContain('created user mod@acme.example (invited');
    expect(await users()).toEqual({
      'admin@acme.example': { roles: 'ADMIN', state: 'invited' },
      'mod@acme.example': { roles: 'MODERATOR,CHILD_SAFETY_MODERATOR', state: 'invited' },
    });

    const events = eventCount(dataDir);
    const second = await apply(EXAMPLE);
    expect(second).toContain('No changes');
    expect(second).not.toMatch(/user (admin|mod)@/);
    expect(eventCount(dataDir)).toBe(events);
  });

  it('keeps the emails out of the event log in plain text: sealed as personal data, the catalog no longer records users', async () => {
    const { dataDir, apply } = setup();
    await apply(EXAMPLE);
    const log = rawLog(dataDir);
    expect(log).toContain('UserCreated');
    expect(log).not.toContain('DashboardUserDefined');
    expect(log.toLowerCase()).not.toContain('admin@acme.example');
    expect(log.toLowerCase()).not.toContain('mod@acme.example');
  });

  it('changes roles when the file does, never touching passwords; a user the file drops is left alone without --prune and disabled with it', async () => {
    const { env, apply, users } = setup();
    await apply(EXAMPLE);
    const invited = await runCli(['user', 'invite', '--org', 'acme', '--email', 'mod@acme.example'], env);
    expect(invited.code, invited.stderr).toBe(0);
    expect(invited.stdout.trim().split('\n').pop()).toMatch(/^http:\/\/localhost:\d+\/console\/invite#acme\.usr_[\w-]+\.[\w-]{43}$/);

    const password = await runCliWithInput(['user', 'set-password', '--org', 'acme', '--email', 'admin@acme.example'], env, 'correct horse battery staple\n');
    expect(password.code, password.stderr).toBe(0);

    const changed = writeConfig(exampleWith(EXAMPLE_USERS, 'users:\n  - { email: admin@acme.example, roles: [ADMIN, ANALYST] }\n'));
    const out = await apply(changed);
    expect(out).toContain('changed the roles of user admin@acme.example');
    expect(out).toContain('left alone user mod@acme.example (not in the file; --prune disables it)');
    expect(await users()).toMatchObject({
      // Its password stays: apply sets roles only.
      'admin@acme.example': { roles: 'ADMIN,ANALYST', state: 'active' },
      'mod@acme.example': { state: 'invited' },
    });

    const dry = await apply(changed, '--prune', '--dry-run');
    expect(dry).toContain('would disable user mod@acme.example');
    expect((await users())['mod@acme.example']).toMatchObject({ state: 'invited' });

    const pruned = await apply(changed, '--prune');
    expect(pruned).toContain('disabled user mod@acme.example');
    expect((await users())['mod@acme.example']).toMatchObject({ state: 'disabled' });
    expect(await apply(changed, '--prune')).toContain('No changes');
  });

  it('refuses, before writing anything, a user whose address belongs to another organization', async () => {
    const { dataDir, env, apply } = setup();
    await apply(EXAMPLE);
    const other = writeConfig(
      exampleWith(/org:\n(\s+)id: acme/, 'org:\n$1id: other').replace(EXAMPLE_USERS, 'users:\n  - { email: Admin@Acme.example, roles: [ADMIN] }\n'),
    );
    const events = eventCount(dataDir);
    const refused = await runCli(['apply', other], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('1 problem(s); nothing was applied:\n  users[0].email: This address belongs to a user of another organization');
    expect(eventCount(dataDir)).toBe(events);
  });

  it('refuses, before writing anything, what creating a user would refuse once the catalog was written: an address named twice in two Unicode forms, one over 254 characters', async () => {
    const { dataDir, env, apply } = setup();
    await apply(EXAMPLE);
    const events = eventCount(dataDir);
    const otherWith = (users: string) => exampleWith(/org:\n(\s+)id: acme/, 'org:\n$1id: other').replace(EXAMPLE_USERS, users);
    const twice = writeConfig(
      otherWith(
        'users:\n  - { email: ok@acme.example, roles: [ADMIN] }\n  - { email: "jos\u00e9@acme.example", roles: [ADMIN] }\n  - { email: "JOSE\u0301@acme.example", roles: [MODERATOR] }\n',
      ),
    );
    const refusedTwice = await runCli(['apply', twice], env);
    expect(refusedTwice.code).toBe(1);
    expect(refusedTwice.stderr).toMatch(/nothing was applied:\n {2}users\[2\]\.email: duplicate user/);
    const long = writeConfig(
      otherWith(`users:\n  - { email: ok@acme.example, roles: [ADMIN] }\n  - { email: ${'a'.repeat(250)}@acme.example, roles: [ADMIN] }\n`),
    );
    const refusedLong = await runCli(['apply', long], env);
    expect(refusedLong.code).toBe(1);
    expect(refusedLong.stderr).toMatch(/nothing was applied:\n {2}users\[1\]\.email: must have at most 254 characters/);
    // Neither the organization other nor ok@acme.example: nothing was written.
    expect(eventCount(dataDir)).toBe(events);
  });
});
