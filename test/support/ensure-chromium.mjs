// npm test's first step: the console's browser tests need a real Chromium, Debian's package, and
// a fresh machine has none. Installs it through apt when it is missing (as root, or with sudo
// that asks no password); otherwise stops with what to run. Never downloads a browser elsewhere.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const CHROMIUM = process.env.WARDEN_CHROMIUM ?? '/usr/bin/chromium';
if (existsSync(CHROMIUM)) process.exit(0);
if (process.env.WARDEN_CHROMIUM) {
  console.error(`WARDEN_CHROMIUM=${CHROMIUM} does not exist`);
  process.exit(1);
}
const root = process.getuid?.() === 0;
const run = (args) => execFileSync(root ? args[0] : 'sudo', root ? args.slice(1) : ['-n', ...args], {
  stdio: ['ignore', 'ignore', 'inherit'],
  env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
});
try {
  console.error('The console browser tests need Chromium: installing Debian\'s package (apt-get install chromium)…');
  run(['apt-get', 'update', '-qq']);
  run(['apt-get', 'install', '-y', '-qq', 'chromium']);
} catch (error) {
  console.error(`Could not install Chromium (${error instanceof Error ? error.message.split('\n')[0] : error}).`);
  console.error('Install it with `sudo apt-get install chromium` (or set WARDEN_CHROMIUM to a Chromium binary) and run npm test again.');
  process.exit(1);
}
if (!existsSync(CHROMIUM)) {
  console.error(`apt-get finished but ${CHROMIUM} is missing`);
  process.exit(1);
}
