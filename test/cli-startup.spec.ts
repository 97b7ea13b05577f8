import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_IDP_CERT } from './support/config-files.js';
import { freshDataDir } from './support/warden-process.js';

const ROOT = join(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin/warden.js');
const NODE = join(ROOT, 'node_modules/.bin/node');
const HOOK = join(ROOT, 'test/support/loaded-packages.hook.mjs');

/** What only the HTTP server needs: a CLI call that loads any of them pays for it on every call. */
const HTTP_ONLY = ['@nestjs/swagger', '@nestjs/platform-fastify', 'fastify', 'class-validator', 'undici'];

/** Runs the built `warden` command; returns the packages its process loaded. */
function packagesLoadedBy(args: string[], dataDir: string): string[] {
  const out = join(mkdtempSync(join(tmpdir(), 'warden-packages-')), 'packages.json');
  const run = spawnSync(NODE, ['--import', HOOK, BIN, ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: {
      PATH: process.env['PATH'],
      HOME: process.env['HOME'],
      WARDEN_DATA_DIR: dataDir,
      WARDEN_TEST_LOADED_PACKAGES: out,
      ACME_HOOK_TOKEN: 'hook-token',
      ACME_IDP_CERT: EXAMPLE_IDP_CERT,
    },
  });
  expect(run.status, run.stderr).toBe(0);
  return JSON.parse(readFileSync(out, 'utf8')) as string[];
}

/**
 * CLI start-up is mostly module loading; the CLI composes only the libraries' core entries, so
 * the HTTP stack (Fastify, Swagger, request validation) and the outbound client's undici stay unloaded.
 */
describe('a CLI call', () => {
  const dataDir = freshDataDir();
  beforeAll(() => {
    packagesLoadedBy(['org', 'create', '--id', 'acme', '--name', 'Acme'], dataDir);
  });

  it.each([
    ['org create', ['org', 'create', '--id', 'other', '--name', 'Other']],
    ['api-key list', ['api-key', 'list', '--org', 'acme']],
    ['apply --dry-run', ['apply', 'examples/acme.yaml', '--dry-run']],
  ])('%s loads the application but none of the HTTP-only packages', (_name, args) => {
    const loaded = packagesLoadedBy(args, dataDir);
    // The hook sees the application's own packages: the assertion below is not vacuous.
    expect(loaded).toEqual(expect.arrayContaining(['@nestjs/core', '@nestjs/cqrs', 'better-sqlite3']));
    expect(loaded.filter((name) => HTTP_ONLY.includes(name))).toEqual([]);
  });

  it('audit verify, an offline check of a file, loads none of the application (cli/run-offline.ts)', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'warden-verify-')), 'empty.ndjson');
    writeFileSync(file, '{}\n');
    const out = join(mkdtempSync(join(tmpdir(), 'warden-packages-')), 'packages.json');
    // It fails (no export header): what it loaded on the way is the point.
    const run = spawnSync(NODE, ['--import', HOOK, BIN, 'audit', 'verify', file, '--no-signatures'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { PATH: process.env['PATH'], HOME: process.env['HOME'], WARDEN_TEST_LOADED_PACKAGES: out },
    });
    expect(run.stdout).toContain('FAILED');
    const loaded = JSON.parse(readFileSync(out, 'utf8')) as string[];
    expect(loaded.filter((name) => name.startsWith('@nestjs/') || ['better-sqlite3', 'zod', 'rxjs'].includes(name))).toEqual([]);
  });
});

/**
 * class-validator is bundled (docs/architecture.md, "Build"): loaded from node_modules by a call
 * the bundler leaves alone (`createRequire(…)('class-validator')`, as @nestjs/mapped-types makes),
 * a second copy would cost every server its 0.15 s again, and a second ValidationPipe importing it
 * itself would see only a default export.
 */
describe('the server bundle', () => {
  const bundle = join(ROOT, 'dist/apps/server/bundle');

  it('holds class-validator in one file, and nothing in it loads class-validator by name', () => {
    const packages = JSON.parse(readFileSync(join(bundle, 'packages.json'), 'utf8')) as Record<string, string[]>;
    expect(Object.entries(packages).filter(([, names]) => names.includes('class-validator'))).toHaveLength(1);
    // esbuild writes every string literal with double quotes (comments keep theirs).
    const byName = Object.keys(packages).filter((file) => /\b(require\d*|import)\("class-validator"\)/.test(readFileSync(join(bundle, file), 'utf8')));
    expect(byName).toEqual([]);
  });
});
