// npm test's first step: the console's browser tests need a real Chromium, Debian's package of
// its headless shell (docs/console.md, "Browser tests").
import { ensureDebianPackage } from './ensure-debian-package.mjs';

ensureDebianPackage({
  pkg: 'chromium-headless-shell',
  binary: '/usr/bin/chromium-headless-shell',
  envVar: 'WARDEN_CHROMIUM',
  why: 'The console browser tests need Chromium',
});
