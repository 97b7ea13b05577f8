import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../support/wait-for.js';
import { CLI_ENTRY, freshDataDir, runCli, runCliBatch, runCliWithInput, testEnv } from '../support/warden-process.js';

// `script` (util-linux) runs a command on a pseudo-terminal, as a person at a shell would.
const SCRIPT = '/usr/bin/script';
const PASSWORD = 'typed at the terminal';

describe.skipIf(!existsSync(SCRIPT))('warden user set-password at a terminal (needs util-linux script)', () => {
  it('asks for the password, never shows it, and finishes at Enter', async () => {
    const dataDir = freshDataDir();
    const env = testEnv(dataDir);
    // One CLI process for the set-up (test/support/warden-process.ts, runCliBatch).
    await runCliBatch(env, [
      ['org', 'create', '--id', 'acme', '--name', 'Acme'],
      ['user', 'create', '--org', 'acme', '--email', 'tty@acme.example', '--role', 'ADMIN'],
    ]);

    const command = [process.execPath, CLI_ENTRY, 'user', 'set-password', '--org', 'acme', '--email', 'tty@acme.example'].map((word) => `'${word}'`).join(' ');
    const child = spawn(SCRIPT, ['-qec', command, '/dev/null'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let screen = '';
    child.stdout.on('data', (chunk: Buffer) => (screen += chunk.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));

    await waitFor(() => screen.includes('New password'), 'the prompt');
    child.stdin.write(`${PASSWORD}\r`);
    expect(await exited).toBe(0);
    expect(screen).toContain('Set the password of user');
    expect(screen).not.toContain(PASSWORD);

    const listed = await runCli(['user', 'list', '--org', 'acme'], env);
    expect(listed.stdout).toMatch(/tty@acme\.example\s+ADMIN\s+active/);
  });

  it('says no password was given when standard input is empty, instead of judging its length', async () => {
    const env = testEnv(freshDataDir());
    // One CLI process for the set-up (test/support/warden-process.ts, runCliBatch).
    await runCliBatch(env, [
      ['org', 'create', '--id', 'acme', '--name', 'Acme'],
      ['user', 'create', '--org', 'acme', '--email', 'none@acme.example', '--role', 'ADMIN'],
    ]);
    const empty = await runCliWithInput(['user', 'set-password', '--org', 'acme', '--email', 'none@acme.example'], env, '');
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('No password given');
  });
});
