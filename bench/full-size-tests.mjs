// End-to-end tests at the size their issue names, where `npm test` runs them smaller (the same
// property at a size that takes seconds, docs/testing.md): each runs through vitest with its size
// in an environment variable, and the table gives how long it took. Needs a built dist/.
// Usage: node bench/full-size-tests.mjs [name…] (default: all)
import { spawnSync } from 'node:child_process';

const TESTS = [
  // Issue 13: 50 moderators claim and decide in parallel; every job decided exactly once, no double claim, none lost.
  {
    name: 'review-concurrency',
    file: 'test/e2e/review-concurrency.e2e.spec.ts',
    env: { REVIEW_CONCURRENCY_JOBS: '10000' },
    size: '10,000 jobs, 50 moderators',
    inTest: '500 jobs',
  },
  // Rules across a crash: the server killed -9 after 500 evaluations; every accepted item evaluated exactly once in effect after the restart.
  {
    name: 'rules-crash',
    file: 'test/e2e/rules-crash.e2e.spec.ts',
    env: { RULES_CRASH_ITEMS: '10000' },
    size: '10,000 items, killed after 500 evaluations',
    inTest: '3,000 items',
  },
  // Two workers, the lease holder killed -9 part-way: every item evaluated once, every callback delivered.
  { name: 'workers', file: 'test/e2e/workers.e2e.spec.ts', env: { WORKERS_E2E_ITEMS: '6000' }, size: '6,000 items, 2,000 callbacks', inTest: '3,000 items' },
  // Issue 32: items published on ITEM_SUBMISSION_EVENT (a real nats-server -js) evaluated and called back exactly once each; the file's other cases (kill -9, broker restart, dead letters) run with it.
  {
    name: 'inbound-topic',
    file: 'test/e2e/inbound-topic.e2e.spec.ts',
    env: { INBOUND_E2E_ITEMS: '10000' },
    size: '10,000 items through the topic',
    inTest: '1,000 items',
  },
];
const chosen = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const rows = [];
for (const test of TESTS.filter((t) => chosen.length === 0 || chosen.includes(t.name))) {
  const started = performance.now();
  const run = spawnSync(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', '--project', 'e2e', test.file], {
    env: { ...process.env, ...test.env },
    stdio: 'inherit',
  });
  rows.push(
    `| ${test.name} | ${test.size} | ${test.inTest} | ${run.status === 0 ? 'passed' : 'FAILED'} | ${((performance.now() - started) / 1000).toFixed(0)} s |`,
  );
  if (run.status !== 0) process.exitCode = 1;
}
console.log(['| test | full size | in npm test | result | wall time |', '|---|---|---|---|---|', ...rows].join('\n'));
