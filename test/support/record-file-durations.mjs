// `npm run test:durations`: writes test/support/file-durations.json, the duration of each e2e,
// browser and fuzz file in its last whole run on this machine (vitest's results cache), for
// the sequencer's order on a fresh clone, where there is no cache (docs/testing.md, "Workers").
// Record it after a whole `npm test` on a clean clone, as CI runs it.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '../..');
const CACHE = join(ROOT, 'node_modules/.vite/vitest');
const OUT = join(ROOT, 'test/support/file-durations.json');

if (!existsSync(CACHE)) {
  console.error('No vitest results cache (node_modules/.vite/vitest): run `npm test` first.');
  process.exit(1);
}
const caches = readdirSync(CACHE)
  .map((dir) => join(CACHE, dir, 'results.json'))
  .filter((file) => existsSync(file));
const durations = {};
for (const file of caches) {
  const { projects } = JSON.parse(readFileSync(file, 'utf8'));
  for (const [project, { files }] of Object.entries(projects)) {
    // The unit project keeps its own order (one module graph per worker).
    if (project === 'unit') continue;
    // A failed file's duration says little of a passing run's; one deleted since is dropped.
    for (const [path, { duration, failed }] of Object.entries(files)) {
      if (duration > 0 && !failed && existsSync(join(ROOT, path))) durations[path] = Math.round(duration);
    }
  }
}
const sorted = Object.fromEntries(Object.entries(durations).sort(([a], [b]) => a.localeCompare(b)));
writeFileSync(OUT, JSON.stringify(sorted, null, 2) + '\n');
console.log(`${Object.keys(sorted).length} files' durations written to test/support/file-durations.json`);
