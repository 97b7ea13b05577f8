import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');

/** The rule names dependency-cruiser reports for these files, with the project's configuration. */
function violations(...files: string[]): string[] {
  const run = spawnSync(
    process.execPath,
    [join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruiser.mjs'), '--config', '.dependency-cruiser.cjs', '--output-type', 'json', ...files],
    { cwd: ROOT, encoding: 'utf8' },
  );
  const report = JSON.parse(run.stdout) as { summary: { violations: Array<{ rule: { name: string }; from: string }> } };
  return report.summary.violations.map((v) => `${v.rule.name}: ${v.from}`);
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
