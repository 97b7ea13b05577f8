import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('..', import.meta.url).pathname;

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !/\.(spec|contract)\.ts$/.test(e.name))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)));
}

/** The rules of the house (docs/architecture.md, "Layout") that dependency-cruiser cannot see. */
describe('house rules', () => {
  const files = [...sourceFiles('apps'), ...sourceFiles('libs')];

  it('reads process.env only in the config module', () => {
    const offenders = files.filter((f) => f !== 'libs/platform/src/config/warden-config.ts' && /process\.env\b/.test(readFileSync(join(ROOT, f), 'utf8')));
    expect(offenders).toEqual([]);
  });

  it('has no utils.ts dumping grounds and no *.service.ts handlers', () => {
    expect(files.filter((f) => /(^|\/)(utils|helpers)\.ts$|\.service\.ts$/.test(f))).toEqual([]);
  });

  it('names files in kebab-case', () => {
    expect(files.filter((f) => !/^[a-z0-9-]+(\.[a-z0-9-]+)*\.ts$/.test(f.split('/').pop()!))).toEqual([]);
  });

  it('imports another library by name (#warden/<lib>), never by a relative path into it', () => {
    const specifiers = /(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g;
    const offenders = files.flatMap((f) => {
      const own = f.split('/').slice(0, 2).join('/');
      return [...readFileSync(join(ROOT, f), 'utf8').matchAll(specifiers)]
        .map((m) => m[1]!)
        .filter((spec) => !normalize(join(dirname(f), spec)).startsWith(own + '/'))
        .map((spec) => `${f}: ${spec}`);
    });
    expect(offenders).toEqual([]);
  });
});
