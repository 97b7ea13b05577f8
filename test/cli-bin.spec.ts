import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freshDataDir } from './support/warden-process.js';

const ROOT = join(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin/warden.js');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  bin?: Record<string, string>;
  scripts: Record<string, string>;
};

/** A Node older than the project needs, first on the PATH without node_modules/.bin (the machine's own, if any). */
function olderNode(): string | undefined {
  for (const dir of (process.env['PATH'] ?? '').split(delimiter)) {
    if (dir === '' || dir.includes('node_modules')) continue;
    const candidate = join(dir, 'node');
    if (!existsSync(candidate)) continue;
    const major = Number(execFileSync(candidate, ['-p', 'process.versions.node.split(".")[0]'], { encoding: 'utf8' }).trim());
    return major < 24 ? candidate : undefined;
  }
  return undefined;
}

const run = (node: string, script: string, args: string[]) =>
  spawnSync(node, [script, ...args], { encoding: 'utf8', env: { PATH: process.env['PATH'], HOME: process.env['HOME'], WARDEN_DATA_DIR: freshDataDir() } });

describe('the warden command', () => {
  it('is the package bin, and `npm run warden` runs it without compiling first', () => {
    expect(pkg.bin).toEqual({ warden: 'bin/warden.js' });
    expect(pkg.scripts['warden']).toBe('node bin/warden.js');
    // npm install and npm ci build once (prepare); npm start builds before it serves.
    expect(pkg.scripts['prepare']).toMatch(/npm run build/);
    expect(pkg.scripts['start']).toMatch(/^node scripts\/build\.mjs && /);
  });

  it('runs the built CLI: its output and its exit codes', () => {
    const help = run(process.execPath, BIN, ['help', 'org']);
    expect(help.status, help.stderr).toBe(0);
    expect(help.stdout).toContain('org create --id <orgId> --name <name>');
    const unknown = run(process.execPath, BIN, ['no-such-command']);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain('Unknown command');
  });

  it('ends with its own exit code when the reader of its output stops early (| head)', async () => {
    const child = spawn(process.execPath, [BIN, 'help'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: process.env['PATH'], HOME: process.env['HOME'], WARDEN_DATA_DIR: freshDataDir() },
    });
    // Closed before the CLI has loaded, so its first write meets a pipe nobody reads.
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });

  it.skipIf(olderNode() === undefined)('re-runs itself on the pinned Node when an older Node comes first on the PATH', () => {
    const created = run(olderNode()!, BIN, ['org', 'create', '--id', 'bin-test', '--name', 'Bin']);
    expect(created.stderr).not.toContain('needs Node.js');
    expect(created.status, created.stderr).toBe(0);
    expect(created.stdout).toContain('Created organization bin-test');
  });

  it('says what to do where nothing is built or installed', () => {
    const root = mkdtempSync(join(tmpdir(), 'warden-bin-'));
    mkdirSync(join(root, 'bin'));
    copyFileSync(BIN, join(root, 'bin/warden.js'));
    const unbuilt = run(process.execPath, join(root, 'bin/warden.js'), ['help']);
    expect(unbuilt.status).toBe(1);
    expect(unbuilt.stderr).toBe('warden is not built yet: run npm run build (npm install and npm start build it too).\n');
    const older = olderNode();
    if (older !== undefined) {
      const uninstalled = run(older, join(root, 'bin/warden.js'), ['help']);
      expect(uninstalled.status).toBe(1);
      expect(uninstalled.stderr).toMatch(/^warden needs Node\.js 24 or newer \(this is v\d+[.\d]*\) and the pinned one is not installed: run npm install\.\n$/);
    }
  });
});
