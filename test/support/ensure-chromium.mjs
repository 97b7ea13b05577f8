// npm test's first step: the console's browser tests need a real Chromium, Debian's package
// (docs/console.md, "Browser tests").
import { ensureDebianPackage } from './ensure-debian-package.mjs';

ensureDebianPackage({ pkg: 'chromium', binary: '/usr/bin/chromium', envVar: 'WARDEN_CHROMIUM', why: 'The console browser tests need Chromium' });
