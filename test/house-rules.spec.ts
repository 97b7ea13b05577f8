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
  const texts = new Map<string, string>();
  /** A file's text, read once for all the rules below (each scans every file). */
  const source = (f: string): string => {
    let text = texts.get(f);
    if (text === undefined) texts.set(f, (text = readFileSync(join(ROOT, f), 'utf8')));
    return text;
  };
  let declarations: Map<string, string[]> | undefined;
  /** The files declaring each event type (`DomainEvent<'Type'`), found once for the two rules on events. */
  const eventDeclarations = (): Map<string, string[]> => {
    if (declarations) return declarations;
    declarations = new Map();
    for (const f of files)
      for (const m of source(f).matchAll(/DomainEvent<\s*'([A-Za-z]+)'/g)) declarations.set(m[1]!, [...(declarations.get(m[1]!) ?? []), f]);
    return declarations;
  };

  it('reads process.env only in the config module', () => {
    const offenders = files.filter((f) => f !== 'libs/platform/src/config/warden-config.ts' && /process\.env\b/.test(source(f)));
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
      return [...source(f).matchAll(specifiers)]
        .map((m) => m[1]!)
        .filter((spec) => !normalize(join(dirname(f), spec)).startsWith(own + '/'))
        .map((spec) => `${f}: ${spec}`);
    });
    expect(offenders).toEqual([]);
  });

  // What the layer rules bus-message-beside-its-handler and bus-message-has-its-handler
  // (.dependency-cruiser.cjs) know a bus message and a handler by: their files' names.
  it('declares commands and queries in *.command.ts or *.query.ts files, and their handlers in *.handler.ts', () => {
    const offenders = files.flatMap((f) => {
      const text = source(f);
      const messages = /\bextends\s+(Command|Query)\s*</.test(text) && !/\.(command|query)\.ts$/.test(f);
      const handlers = /@(Command|Query)Handler\(/.test(text) && !/\.handler\.ts$/.test(f);
      return messages || handlers ? [f] : [];
    });
    expect(offenders).toEqual([]);
  });

  it("declares each event type once, in its owner's domain/*.events.ts, exported by the owner's contracts.ts", () => {
    // What dependency-cruiser cannot see: the event type's name (docs/architecture.md, "Events").
    const declared = eventDeclarations();
    expect([...declared].filter(([, where]) => where.length > 1)).toEqual([]);
    const outside = [...declared].filter(([, [f]]) => !/^libs\/[^/]+\/src\/domain\/[^/]+\.events\.ts$/.test(f!));
    expect(outside).toEqual([]);
    const unexported = [...new Set([...declared.values()].map(([f]) => f!))].filter((f) => {
      const contracts = join(ROOT, f.split('/').slice(0, 3).join('/'), 'contracts.ts');
      return !readFileSync(contracts, 'utf8').includes(`'./domain/${f.split('/').pop()!.replace(/\.ts$/, '.js')}'`);
    });
    expect(unexported).toEqual([]);
  });

  it("registers each event's personal-data rules beside it: a library's <LIB>_PERSONAL_DATA covers only events it declares", async () => {
    const owner = new Map([...eventDeclarations()].map(([type, where]) => [type, where.at(-1)!.split('/')[1]!] as const));
    const misplaced: string[] = [];
    for (const lib of readdirSync(join(ROOT, 'libs'))) {
      if (!files.includes(`libs/${lib}/src/contracts.ts`)) continue;
      const contracts = (await import(join(ROOT, 'libs', lib, 'src/contracts.ts'))) as { [name: string]: unknown };
      for (const [name, rules] of Object.entries(contracts)) {
        if (!name.endsWith('_PERSONAL_DATA')) continue;
        for (const type of Object.keys(rules as object))
          if (owner.get(type) !== lib) misplaced.push(`${lib}: ${type} (declared by ${owner.get(type) ?? 'no one'})`);
      }
    }
    expect(misplaced).toEqual([]);
  });
});
