import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXAMPLE, EXAMPLE_IDP_CERT } from '../support/config-files.js';
import { consoleLogin, freshDataDir, runCli, runCliWithInput, startWarden, testEnv } from '../support/warden-process.js';

const SECRETS = { ACME_HOOK_TOKEN: 'hook-token-s3cret', ACME_IDP_CERT: EXAMPLE_IDP_CERT };
const PASSWORD = 'a long passphrase of hers';

interface Report {
  line: number;
  exit: number;
  out: string[];
  error: string | null;
}

const script = (...lines: unknown[]) => lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n';
const reports = (stdout: string): Report[] =>
  stdout
    .trim()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Report);

/** `warden batch` (docs/cli.md, "Batches"): the built CLI against a real store. */
describe('warden batch', () => {
  it("runs docs/cli.md's provisioning script in one process: the configuration, a key and a password that signs in", async () => {
    const dataDir = freshDataDir();
    const env = testEnv(dataDir, SECRETS);
    const batch = await runCliWithInput(
      ['batch'],
      env,
      script(
        ['apply', EXAMPLE],
        '',
        ['api-key', 'create', '--org', 'acme', '--name', 'ingest'],
        { args: ['user', 'set-password', '--org', 'acme', '--email', 'admin@acme.example'], input: PASSWORD },
        { args: ['user', 'create', '--org', 'acme', '--email', 'analyst@acme.example', '--role', 'ANALYST', '--with-password'], input: `${PASSWORD}\n` },
      ),
    );
    expect(batch.code, batch.stderr).toBe(0);
    const [applied, key, password, created] = reports(batch.stdout);
    expect([applied!.line, key!.line, password!.line, created!.line]).toEqual([1, 3, 4, 5]);
    expect([applied, key, password, created].map((r) => [r!.exit, r!.error])).toEqual(Array(4).fill([0, null]));
    // The passwords went in through the entries' input, and come out nowhere.
    expect(batch.stdout + batch.stderr).not.toContain('passphrase');
    const apiKey = key!.out.at(-1)!;
    expect(apiKey).toMatch(/^wdn_/);
    expect(password!.out).toEqual([expect.stringMatching(/^Set the password of user /)]);

    const warden = await startWarden(env);
    try {
      expect((await fetch(`${warden.url}/api/v1/policies/`, { headers: { 'x-api-key': apiKey } })).status).toBe(200);
      await consoleLogin(warden.url, 'admin@acme.example', PASSWORD);
      // One trailing newline of an input is dropped, as from a pipe.
      await consoleLogin(warden.url, 'analyst@acme.example', PASSWORD);
    } finally {
      await warden.stop();
    }
  });

  it('stops at the first command that fails, with its exit code; what ran before it stands', async () => {
    const env = testEnv(freshDataDir());
    const batch = await runCliWithInput(
      ['batch'],
      env,
      script(
        ['org', 'create', '--id', 'first', '--name', 'First'],
        ['api-key', 'create', '--org', 'nowhere'],
        ['org', 'create', '--id', 'never', '--name', 'Never'],
      ),
    );
    expect(batch.code).toBe(1);
    const ran = reports(batch.stdout);
    expect(ran.map((r) => [r.line, r.exit])).toEqual([
      [1, 0],
      [2, 1],
    ]);
    expect(ran[1]!.error).toMatch(/^Error: .*nowhere/);
    expect((await runCli(['api-key', 'list', '--org', 'first'], env)).code).toBe(0);
    expect((await runCli(['api-key', 'create', '--org', 'never'], env)).code).toBe(1);
  });

  it("reports a configuration file's problems in the apply's own report, not on the batch's standard error", async () => {
    const env = testEnv(freshDataDir());
    const file = join(freshDataDir(), 'bad.yaml');
    writeFileSync(
      file,
      'org: { id: bad, name: Bad }\nactions:\n  - { id: a, name: A, kind: CUSTOMER_DEFINED_ACTION, itemTypeIds: [], callback: { url: "https://x.example", headers: { X-Price: "5 €" } } }\n',
    );
    const batch = await runCliWithInput(['batch'], env, script(['apply', file]));
    expect(batch.code).toBe(1);
    const [ran] = reports(batch.stdout);
    expect(ran).toMatchObject({ line: 1, exit: 1, out: [] });
    expect(ran!.error).toContain('actions[0].callback.headers["X-Price"]: must be printable ASCII');
    expect(batch.stderr).not.toContain('X-Price');
  });

  it('refuses a script with a bad line before running any of it (exit 2, the line named)', async () => {
    const env = testEnv(freshDataDir());
    const cases: Array<[string, RegExp]> = [
      [script(['org', 'create', '--id', 'early', '--name', 'Early'], 'org create --id x'), /^Line 2 is not JSON/],
      [script(['org', 'create', '--id', 'early', '--name', 'Early'], ['frobnicate']), /^Line 2: Unknown command: frobnicate/],
      [script(['org', 'create', '--id', 'early', '--name', 'Early'], ['batch']), /^Line 2: a batch cannot run another batch/],
      [script({ args: ['help'], password: 'x' }), /^Line 1: unknown field "password"/],
      [script([1, 2]), /^Line 1: the arguments must be a non-empty array of strings/],
      [script({ args: ['help'], input: 3 }), /^Line 1: "input" must be a string/],
    ];
    for (const [text, message] of cases) {
      const batch = await runCliWithInput(['batch'], env, text);
      expect(batch.code, text).toBe(2);
      expect(batch.stdout).toBe('');
      expect(batch.stderr).toMatch(message);
    }
    // Nothing of the scripts ran: the organization of their first lines does not exist.
    expect((await runCli(['api-key', 'create', '--org', 'early'], env)).code).toBe(1);
    // An unknown option is a usage error (exit 2, docs/cli.md) for every command, openapi's too.
    const unknownOption = await runCli(['openapi', '--bogus'], env);
    expect(unknownOption.code).toBe(2);
    expect(unknownOption.stderr).toContain('--bogus');
  });

  it('refuses, before running anything, a password a command lacks or an input a command would drop', async () => {
    const env = testEnv(freshDataDir());
    const create = ['user', 'create', '--org', 'acme', '--email', 'a@acme.example', '--role', 'ADMIN'];
    for (const [last, message] of [
      [[...create, '--with-password'], /^Line 2: user create reads a password: give it as the entry's "input"/],
      [{ args: create, input: PASSWORD }, /^Line 2: user create reads no input \(without --with-password\)/],
    ] as const) {
      const batch = await runCliWithInput(['batch'], env, script(['org', 'create', '--id', 'acme', '--name', 'Acme'], last));
      expect(batch.code).toBe(2);
      expect(batch.stdout).toBe('');
      expect(batch.stderr).toMatch(message);
      expect(batch.stderr).not.toContain(PASSWORD);
    }
    expect((await runCli(['api-key', 'create', '--org', 'acme'], env)).code).toBe(1);
  });
});
