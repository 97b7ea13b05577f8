// Runs every benchmark in turn; each prints its own table.
await import('./startup.mjs');
console.log();
await import('./append.mjs');
console.log();
await import('./apply.mjs');
