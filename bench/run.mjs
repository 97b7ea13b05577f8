// Runs every benchmark in turn; each prints its own table (copied into docs/benchmarks.md).
for (const name of [
  'startup',
  'append',
  'read-model-writes',
  'apply',
  'ingest',
  'inbound-topic',
  'partial-items',
  'single-item',
  'long-text-regex',
  'large-term-list',
  'hashing',
  'callbacks',
  'console',
  'console-ui',
  'review',
  'review-job-stream',
  'full-size-tests',
  'enforcement',
  'bulk-actions',
  'audit',
  'audit-chain-apply',
  'investigate',
  'transparency',
  'erasure-under-load',
  'flood',
]) {
  await import(`./${name}.mjs`);
  console.log();
}
