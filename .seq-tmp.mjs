import module from 'node:module';
module.enableCompileCache?.();
const root = process.cwd();
const steps = process.argv.slice(2);
for (const s of steps) {
  const t0 = performance.now();
  await import(s.startsWith('dist/') ? root + '/' + s : s);
  console.log(s.padEnd(50), Math.round(performance.now() - t0));
}
