import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('..', import.meta.url).pathname;

/** The "Main flows" section of docs/architecture.md, one entry per path (its `###` heading). */
function mainFlows(): Array<{ name: string; text: string }> {
  const doc = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
  const start = doc.indexOf('\n## Main flows\n');
  const section = doc.slice(start, doc.indexOf('\n## ', start + 1));
  return section
    .split('\n### ')
    .slice(1)
    .map((part) => ({ name: part.slice(0, part.indexOf('\n')), text: part }));
}

// The paths name the files a change touches, one step a file: a file moved or renamed without the
// page would send the next reader to nothing.
describe('the main flows in docs/architecture.md', () => {
  const flows = mainFlows();

  it('has the four paths', () => {
    expect(flows.map((f) => f.name)).toEqual(['Item → callback', 'Report → job', 'Decision → callback', 'Erasure']);
  });

  it.each(flows.map((f) => [f.name, f.text] as const))('%s: names files that exist', (_name, text) => {
    const files = [...text.matchAll(/`((?:libs|apps)\/[^`\s]+\.ts)`/g)].map((m) => m[1]!);
    expect(files.length).toBeGreaterThan(1);
    expect(files.filter((f) => !existsSync(join(ROOT, f)))).toEqual([]);
  });
});
