// Start-up time to /health/ready and resident memory at idle of the server on the embedded profile.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const RUNS = Number(process.argv[2] ?? 3);
const port = 39000 + Math.floor(Math.random() * 1000);

async function once() {
  const dir = mkdtempSync(join(tmpdir(), 'warden-bench-'));
  const started = performance.now();
  const child = spawn(process.execPath, ['dist/apps/server/bundle/main.js'], {
    env: { ...process.env, WARDEN_DATA_DIR: dir, PORT: String(port), HOST: '127.0.0.1', WARDEN_LOG_LEVEL: 'warn' },
    stdio: 'ignore',
  });
  let readyMs;
  while (readyMs === undefined) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health/ready`)).ok) readyMs = performance.now() - started;
    } catch {
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  await new Promise((r) => setTimeout(r, 5000));
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))[1]);
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  rmSync(dir, { recursive: true, force: true });
  return { readyMs, rssMb: rssKb / 1024 };
}

const results = [];
for (let i = 0; i < RUNS; i++) results.push(await once());
console.log(`Server start-up on the embedded profile (node ${process.version}, ${RUNS} runs)\n`);
console.log('| run | process start to /health/ready 200 (ms) | RSS after 5 s idle (MiB) |');
console.log('|---|---|---|');
results.forEach((r, i) => console.log(`| ${i + 1} | ${Math.round(r.readyMs)} | ${r.rssMb.toFixed(1)} |`));
