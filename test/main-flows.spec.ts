import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('..', import.meta.url).pathname;

/** The "Main flows" section of docs/architecture.md, one entry per path (its `###` heading). */
function mainFlows(): Array<{ name: string; text: string }> {
  const doc = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
  const section = doc.slice(doc.indexOf('\n## Main flows\n'), doc.indexOf('\n## ', doc.indexOf('\n## Main flows\n') + 1));
  return section
    .split('\n### ')
    .slice(1)
    .map((part) => ({ name: part.slice(0, part.indexOf('\n')), text: part }));
}

/** The files a text names (`libs/…` or `apps/…` in backquotes). */
const namedFiles = (text: string): string[] => [...text.matchAll(/`((?:libs|apps)\/[^`\s]+\.ts)`/g)].map((m) => m[1]!);

/** The numbered steps of a path (a step's first line `1. …`, then its indented lines), without what is named beside it. */
const steps = (text: string): string => text.match(/^\d+\. .*(?:\n {3}.*)*/gm)?.join('\n') ?? '';

/** Issue 35's acceptance, checked against the code rather than taken from the page (docs/architecture.md, "Main flows"). */
describe('the main flows in docs/architecture.md', () => {
  const flows = mainFlows();

  it('has the four paths', () => {
    expect(flows.map((f) => f.name)).toEqual(['Item → callback', 'Report → job', 'Decision → callback', 'Erasure']);
  });

  it.each(flows.map((f) => [f.name, f.text] as const))('%s: visits no module twice, and names only modules that exist', (_name, text) => {
    const line = /^Modules: ([^,.]+)[,.]/m.exec(text);
    expect(line, 'a "Modules:" line').not.toBeNull();
    const modules = line![1]!.split('→').map((m) => m.trim());
    expect(new Set(modules).size).toBe(modules.length);
    for (const m of modules) expect(existsSync(join(ROOT, 'libs', m, 'src/index.ts')), `libs/${m}`).toBe(true);
  });

  it.each(flows.map((f) => [f.name, f.text] as const))('%s: names files that exist', (_name, text) => {
    const files = namedFiles(text);
    expect(files.length).toBeGreaterThan(1);
    expect(files.filter((f) => !existsSync(join(ROOT, f)))).toEqual([]);
  });

  // What would make the page untrue: a step of a path handing work to another module on the bus
  // (a visit the "Modules:" line does not show); ports and reads are how a step asks another module.
  it.each(flows.map((f) => [f.name, f.text] as const))('%s: no step sends a command to another module on the bus', (_name, text) => {
    const offenders = namedFiles(steps(text)).flatMap((f) => {
      const own = f.split('/').slice(0, 2).join('/');
      const source = readFileSync(join(ROOT, f), 'utf8');
      return [...source.matchAll(/import\s*\{([^}]*)\}\s*from\s*'#warden\/([a-z-]+)(?:\/[a-z]+)?'/g)]
        .filter((m) => `libs/${m[2]}` !== own)
        .flatMap((m) => m[1]!.split(',').map((name) => name.trim()))
        .filter((name) => /Command$/.test(name))
        .map((name) => `${f}: ${name}`);
    });
    expect(offenders).toEqual([]);
  });
});
