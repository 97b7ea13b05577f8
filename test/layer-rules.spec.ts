import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');

/** The fixtures the tests below cruise: one dependency-cruiser run for all (each run is ~3 s of CPU). */
const FIXTURES = [
  'test/fixtures/impure-domain/domain/leaky-rule.ts',
  'test/fixtures/impure-domain/domain/pure-rule.ts',
  'test/fixtures/bus-messages',
  'test/fixtures/stray-events/stray.events.ts',
  'test/fixtures/leaky-entry/index.ts',
  'test/fixtures/leaky-entry/contracts.ts',
];

let cruised: Array<{ rule: string; from: string }> | undefined;

/** Every violation dependency-cruiser reports for the fixtures, with the project's configuration. */
function cruiseFixtures(): Array<{ rule: string; from: string }> {
  if (cruised) return cruised;
  const run = spawnSync(
    process.execPath,
    [join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruiser.mjs'), '--config', '.dependency-cruiser.cjs', '--output-type', 'json', ...FIXTURES],
    // The JSON report lists every module cruised from the files (over a megabyte, spawnSync's default buffer).
    { cwd: ROOT, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 },
  );
  const report = JSON.parse(run.stdout) as { summary: { violations: Array<{ rule: { name: string }; from: string }> } };
  cruised = report.summary.violations.map((v) => ({ rule: v.rule.name, from: v.from }));
  return cruised;
}

/** The rule names reported for modules at or under `path` (a fixture of FIXTURES). */
function violations(path: string): string[] {
  if (!FIXTURES.includes(path)) throw new Error(`${path} is not in FIXTURES`);
  return cruiseFixtures()
    .filter((v) => v.from === path || v.from.startsWith(`${path}/`))
    .map((v) => `${v.rule}: ${v.from}`);
}

describe('layer rules (dependency-cruiser)', () => {
  it("refuse a domain file that reaches a framework only through another module's index, even for a type", () => {
    expect(violations('test/fixtures/impure-domain/domain/leaky-rule.ts')).toContain(
      'domain-is-pure-transitively: test/fixtures/impure-domain/domain/leaky-rule.ts',
    );
  });

  it("accept the same file importing that module's contracts", () => {
    expect(violations('test/fixtures/impure-domain/domain/pure-rule.ts')).toEqual([]);
  });

  it("refuse a command or query declared outside its handler's module, from either side, and accept one declared beside its handler", () => {
    expect(violations('test/fixtures/bus-messages').sort()).toEqual([
      'bus-message-beside-its-handler: test/fixtures/bus-messages/libs/other/src/queries/stray/stray.handler.ts',
      'bus-message-has-its-handler: test/fixtures/bus-messages/libs/owner/src/queries/stray/stray.query.ts',
    ]);
  });

  it("refuse an events file outside a library's domain/ (an event declared outside its owner's contracts)", () => {
    expect(violations('test/fixtures/stray-events/stray.events.ts')).toContain(
      'events-declared-in-owner-contracts: test/fixtures/stray-events/stray.events.ts',
    );
  });

  it("refuse a library's index that re-exports its domain files, and accept its contracts.ts doing so", () => {
    expect(violations('test/fixtures/leaky-entry/index.ts')).toContain('domain-only-through-contracts: test/fixtures/leaky-entry/index.ts');
    expect(violations('test/fixtures/leaky-entry/contracts.ts')).toEqual([]);
  });
});
