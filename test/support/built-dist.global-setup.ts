// Global setup of the projects that run the built server (e2e, browser, fuzz): they test dist/,
// so a dist/ built from other sources than the work tree's would test old code and pass or fail
// for the wrong reason. Refuses to run then, saying what changed and what to run. The scripts
// (`npm test`, `npm run test:e2e`, …) build first, and a build with nothing changed is a no-op.
import { staleness } from '../../scripts/build-inputs.mjs';

export default function checkBuiltDist(): void {
  if (process.env['WARDEN_TEST_STALE_DIST'] === 'allow') return;
  const stale = staleness();
  if (stale) throw new Error(`${stale}. (WARDEN_TEST_STALE_DIST=allow runs them anyway.)`);
}
