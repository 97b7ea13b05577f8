// A test run's own temporary directory (docs/testing.md, "Temporary files"). The tests make their
// data directories, brokers' stores, key files and browser profiles under os.tmpdir(), and many
// leave them there: a developer's /tmp held 8.5 GB of them after a few hundred runs. Every process
// of a run gets TMPDIR set to one fresh directory, removed when the run ends, whatever its outcome.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A fresh directory under the machine's temporary directory, and the environment that puts a run's files in it. */
export function runTempDir() {
  const dir = mkdtempSync(join(tmpdir(), 'warden-test-run-'));
  return { dir, env: { ...process.env, TMPDIR: dir } };
}

/** Removes the run's directory (a process the run left behind may still write there: what it writes later is its own). */
export function removeRunTempDir(dir) {
  try {
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  } catch (error) {
    // A process the run left behind still writing there: the run's outcome stands all the same.
    process.stderr.write(`could not remove the run's temporary directory ${dir}: ${error.message}\n`);
  }
}
