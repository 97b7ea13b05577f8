// What a build of dist/ is made from, as content digests: `scripts/build.mjs` records them in
// dist/.build-inputs.json once a build has finished, and the end-to-end, browser and fuzz tests
// (test/support/built-dist.global-setup.ts) compare them with the work tree, refusing a dist/
// built from other sources. Digests rather than modification times: a checkout, a copy or an
// editor's save that changes nothing does not make a build stale, and any real change does.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const STAMP = join(ROOT, 'dist/.build-inputs.json');

/** Files under `dir` (repository-relative, '/'-separated, sorted) that `keep` accepts. */
function walk(dir, keep) {
  const out = [];
  const visit = (abs) => {
    for (const entry of readdirSync(abs, { withFileTypes: true })) {
      if (entry.name === 'node_modules') continue;
      const path = join(abs, entry.name);
      if (entry.isDirectory()) visit(path);
      else if (entry.isFile()) {
        const rel = relative(ROOT, path).split(sep).join('/');
        if (keep(rel)) out.push(rel);
      }
    }
  };
  if (existsSync(join(ROOT, dir))) visit(join(ROOT, dir));
  return out.sort();
}

const isTest = (rel) => /\.(spec|test|contract)\.ts$/.test(rel);

/** The server's inputs: what tsconfig.build.json compiles, and the files that configure it. */
export function serverInputs() {
  return [
    ...walk('apps', (rel) => rel.endsWith('.ts') && !rel.startsWith('apps/console/') && !isTest(rel)),
    ...walk('libs', (rel) => rel.endsWith('.ts') && !isTest(rel)),
    'package.json',
    'package-lock.json',
    'tsconfig.json',
    'tsconfig.build.json',
    // How the entries are bundled from TypeScript's output.
    'scripts/bundle.mjs',
  ];
}

/** The console's inputs: its sources and configuration, the OpenAPI document its client is typed from, the lockfile. */
export function consoleInputs() {
  return [
    // schema.gen.ts is generated from docs/openapi.json (listed) during the build.
    ...walk('apps/console', (rel) => rel !== 'apps/console/src/api/schema.gen.ts'),
    'docs/openapi.json',
    'package-lock.json',
  ];
}

/** `{ path: sha256 }` of each file (a missing file digests as null). */
export function digests(paths) {
  const out = {};
  for (const path of paths) {
    const abs = join(ROOT, path);
    if (!existsSync(abs)) {
      out[path] = null;
      continue;
    }
    let bytes = readFileSync(abs);
    // package.json's scripts are not built into anything: editing one leaves dist/ current.
    if (path === 'package.json') bytes = Buffer.from(JSON.stringify({ ...JSON.parse(bytes.toString('utf8')), scripts: undefined }));
    out[path] = createHash('sha256').update(bytes).digest('hex');
  }
  return out;
}

/** One digest over a set of file digests. */
export function combined(fileDigests) {
  return createHash('sha256').update(JSON.stringify(fileDigests)).digest('hex');
}

/** The stamp of the last finished build, or undefined. */
export function readStamp() {
  try {
    return JSON.parse(readFileSync(STAMP, 'utf8'));
  } catch {
    return undefined;
  }
}

/**
 * How dist/ differs from what the work tree would build: undefined when it is current, otherwise
 * one line naming what to run and up to five changed files.
 */
export function staleness() {
  const stamp = readStamp();
  if (!stamp) return 'dist/ has not been built here (or its build did not finish): run `npm run build`';
  // What the tests run (scripts/bundle.mjs); a build recreates it when it is missing.
  for (const entry of ['dist/apps/server/bundle/main.js', 'dist/apps/server/bundle/cli.js']) {
    if (!existsSync(join(ROOT, entry))) return `dist/ has no ${entry}: run \`npm run build\``;
  }
  const now = { ...digests(serverInputs()), ...digests(consoleInputs()) };
  const before = { ...stamp.server, ...stamp.console };
  const changed = [...new Set([...Object.keys(now), ...Object.keys(before)])].filter((p) => now[p] !== before[p]).sort();
  if (changed.length === 0) return undefined;
  const shown = changed.slice(0, 5).join(', ') + (changed.length > 5 ? ` and ${changed.length - 5} more` : '');
  return `dist/ is stale: ${shown} changed since the last build; run \`npm run build\` (a no-op build takes about a second)`;
}
