import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import GithubSlugger from 'github-slugger';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');

/** The pages a reader follows links through: the README and every page under docs/. */
function pages(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.md'))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)));
  return ['README.md', ...docs].sort();
}

/** A page's text without its fenced code blocks, where `](…)` is code, not a link. */
const prose = (page: string): string => readFileSync(join(ROOT, page), 'utf8').replace(/^\s*```[\s\S]*?^\s*```/gm, '');

/**
 * The anchors a page's headings get where readers open it (GitHub's renderer): the heading's text,
 * lower-cased, punctuation dropped, spaces to hyphens, and `-1`, `-2` … on repeats. github-slugger
 * is the implementation of that rule the renderer's own tooling uses.
 */
function anchors(page: string): Set<string> {
  const slugger = new GithubSlugger();
  return new Set([...prose(page).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)].map((m) => slugger.slug(m[1]!)));
}

/** Every relative link of a page: `[text](target)` with no scheme (http, mailto …). */
function links(page: string): { target: string; line: number }[] {
  const text = prose(page);
  return [...text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)]
    .map((m) => ({ target: m[1]!, line: text.slice(0, m.index).split('\n').length }))
    .filter(({ target }) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

describe('links between the README and docs/', () => {
  const cache = new Map<string, Set<string>>();
  const anchorsOf = (page: string) => cache.get(page) ?? cache.set(page, anchors(page)).get(page)!;

  it('name files that exist and headings those files have', () => {
    const broken: string[] = [];
    for (const page of pages()) {
      for (const { target, line } of links(page)) {
        const [path, anchor] = target.split('#', 2) as [string, string | undefined];
        const file = path === '' ? page : relative(ROOT, join(dirname(join(ROOT, page)), decodeURIComponent(path)));
        if (!existsSync(join(ROOT, file))) {
          broken.push(`${page}:${line} → ${target}: no such file`);
          continue;
        }
        if (anchor === undefined || !file.endsWith('.md') || statSync(join(ROOT, file)).isDirectory()) continue;
        if (!anchorsOf(file).has(decodeURIComponent(anchor))) broken.push(`${page}:${line} → ${target}: no such heading`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('finds the links it checks (a page that links by anchor is read)', () => {
    // Guards the check itself: were the link pattern to match nothing, the test above would pass.
    const all = pages().flatMap((page) => links(page));
    expect(all.filter((l) => l.target.includes('#')).length).toBeGreaterThan(50);
    expect(anchorsOf('docs/benchmarks.md').has('large-term-lists-benchlarge-term-listmjs-2026-12-02-nineteenth-session')).toBe(true);
  });
});
