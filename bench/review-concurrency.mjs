// Issue 13's concurrency acceptance at full size: 50 moderators claim and decide in parallel over
// 10,000 jobs of one queue; every job decided exactly once, no double claim, no lost job (judged
// from the log). `npm test` runs the same test over 1,000 jobs (test/e2e/review-concurrency.e2e.spec.ts);
// this runs it at the size the issue names and prints how long it took. Needs a built dist/.
// Usage: node bench/review-concurrency.mjs [jobs, default 10000]
import { spawnSync } from 'node:child_process';

const JOBS = Number(process.argv[2] ?? 10_000);
const started = performance.now();
const run = spawnSync(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', 'test/e2e/review-concurrency.e2e.spec.ts'], {
  env: { ...process.env, REVIEW_CONCURRENCY_JOBS: String(JOBS) },
  stdio: 'inherit',
});
const seconds = (performance.now() - started) / 1000;
console.log(`| jobs | moderators | result | wall time |\n|---|---|---|---|\n| ${JOBS.toLocaleString('en')} | 50 | ${run.status === 0 ? 'passed' : 'FAILED'} | ${seconds.toFixed(0)} s |`);
if (run.status !== 0) process.exitCode = 1;
