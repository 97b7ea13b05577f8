import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');

/** Source files whose comments are checked: code, tests, benchmarks and scripts (not generated files). */
function sourceFiles(): string[] {
  return ['libs', 'apps', 'test', 'bench', 'scripts'].flatMap((dir) =>
    existsSync(join(ROOT, dir))
      ? readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
          .filter((e) => e.isFile() && /\.(ts|tsx|js|mjs|cjs)$/.test(e.name) && !e.name.endsWith('.gen.ts'))
          .map((e) => relative(ROOT, join(e.parentPath, e.name)))
          .filter((f) => !/(^|\/)(node_modules|dist|tmp)\//.test(f))
      : [],
  );
}

/**
 * The text of every comment in a file, found through the parser (never a string's content): the
 * comment ranges before and after every node, after a node's trailing comma, and between the tokens
 * of a node with no child nodes (an empty block). That finds the same comments as asking every
 * token, in a third of the time.
 */
function comments(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const kind = file.endsWith('.tsx') ? ts.ScriptKind.TSX : /\.(c|m)?js$/.test(file) ? ts.ScriptKind.JS : ts.ScriptKind.TS;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, kind);
  const found = new Map<number, number>();
  const around = (pos: number) => {
    for (const r of [...(ts.getLeadingCommentRanges(text, pos) ?? []), ...(ts.getTrailingCommentRanges(text, pos) ?? [])]) found.set(r.pos, r.end);
  };
  const visit = (node: ts.Node): void => {
    if (node.kind === ts.SyntaxKind.JsxText) return;
    around(node.pos);
    around(node.end);
    if (text[node.end] === ',') around(node.end + 1);
    let children = 0;
    ts.forEachChild(node, (child) => {
      children++;
      visit(child);
    });
    if (children === 0 && node.kind >= ts.SyntaxKind.FirstNode) for (const token of node.getChildren(source)) around(token.end);
  };
  visit(source);
  return [...found].map(([pos, end]) => text.slice(pos, end));
}

/** A comment's words on one line: without the comment markers and line breaks. */
const flat = (comment: string): string =>
  comment
    .replace(/^\/\*\*?|\*\/$/g, '')
    .split('\n')
    .map((line) => line.replace(/^\s*(\*(?!\/)|\/\/)?\s?/, '').trim())
    .join(' ');

/** What cites a document outside the repository: the design card, the customer interface's and the configuration format's specifications. */
const OUTSIDE = [
  /DESIGN\.md/,
  /\.\.\/shared\b/,
  /\binterface[- ]spec/i,
  /\borg-config\.md\b/,
  /\bspec,?\s+(?:section\s+)?§?\d/i,
  /(?<!documentation )\bsection\s+\d/i,
  /§\s?\d/,
  // A comment that is nothing but a section number (`}, // 4.1`).
  /^\s*\/\/\s*\d+\.\d+\s*$/,
];

/**
 * The titles a citation may name on a docs page, lower-cased: its headings (as written, backticks
 * included) and the bold lead-ins of its paragraphs (`**Credentials.**`).
 */
function titles(page: string): string[] {
  const text = readFileSync(join(ROOT, page), 'utf8').replace(/^```[\s\S]*?^```/gm, '');
  const headings = [...text.matchAll(/^#{1,6}\s+(.+?)\s*$/gm)].map((m) => m[1]!);
  const leadIns = [...text.matchAll(/\*\*([^*]+?)[.:]?\*\*/g)].map((m) => m[1]!);
  return [...headings, ...leadIns].map((t) => t.toLowerCase());
}

/** A citation names a section by its title or the start of its title ("Replay" for "Replay: the read models as they were"). */
const hasTitle = (page: string, cited: string): boolean => titles(page).some((t) => t.includes(cited.toLowerCase()));

// Comments cite documents inside the repository (issue 35), so a reader can follow every citation:
// the rules the code relies on live in docs/ (`(docs/callbacks.md, "The bodies")`).
describe('citations in comments', () => {
  // Only files whose text holds a candidate are parsed: most hold none.
  let cache: Array<[file: string, comments: string[]]> | undefined;
  const commented = () =>
    (cache ??= sourceFiles()
      .filter((file) => {
        const text = readFileSync(join(ROOT, file), 'utf8');
        return /\bdocs\/[a-z0-9-]+\.md/.test(text) || text.split('\n').some((line) => OUTSIDE.some((re) => re.test(line)));
      })
      .map((file) => [file, comments(file)]));

  it('name no document outside the repository (DESIGN.md, the interface spec, org-config.md)', () => {
    const offenders = commented().flatMap(([file, texts]) =>
      texts
        .flatMap((c) => c.split('\n'))
        .filter((line) => OUTSIDE.some((re) => re.test(line)))
        .map((line) => `${file}: ${line.trim()}`),
    );
    expect(offenders).toEqual([]);
  });

  it('name docs pages that exist, and headings those pages have', () => {
    const cited = /\bdocs\/([a-z0-9-]+\.md)(?:,\s*"([^"]+)")?/g;
    const offenders = commented().flatMap(([file, texts]) =>
      texts.flatMap((c) =>
        [...flat(c).matchAll(cited)].flatMap(([whole, page, heading]) => {
          const path = `docs/${page}`;
          if (!existsSync(join(ROOT, path))) return [`${file}: ${whole} (no such page)`];
          if (heading !== undefined && !hasTitle(path, heading)) return [`${file}: ${whole} (no such heading)`];
          return [];
        }),
      ),
    );
    expect(offenders).toEqual([]);
  });
});
