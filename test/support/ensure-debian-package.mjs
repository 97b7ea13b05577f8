// What npm test's install steps share: a test needs a real program that comes as a Debian package
// (Chromium for the browser tests, nats-server for the inbound topic), and a fresh machine has
// none. Installs the package through apt when the binary is missing (as root, or with sudo that
// asks no password); otherwise stops with what to run. Never downloads anything elsewhere, so the
// tests that need it never skip.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/**
 * @param {{ pkg: string, binary: string, envVar: string, why: string }} wanted
 *   `binary` is the default path; the environment variable `envVar` names another binary.
 */
export function ensureDebianPackage({ pkg, binary, envVar, why }) {
  const path = process.env[envVar] ?? binary;
  if (existsSync(path)) return;
  if (process.env[envVar]) fail(`${envVar}=${path} does not exist`);
  const root = process.getuid?.() === 0;
  const run = (args) =>
    execFileSync(root ? args[0] : 'sudo', root ? args.slice(1) : ['-n', ...args], {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  try {
    console.error(`${why}: installing Debian's package (apt-get install ${pkg})…`);
    run(['apt-get', 'update', '-qq']);
    run(['apt-get', 'install', '-y', '-qq', pkg]);
  } catch (error) {
    console.error(`Could not install ${pkg} (${error instanceof Error ? error.message.split('\n')[0] : error}).`);
    fail(`Install it with \`sudo apt-get install ${pkg}\` (or set ${envVar} to its binary) and run npm test again.`);
  }
  if (!existsSync(path)) fail(`apt-get finished but ${path} is missing`);
}

function fail(message) {
  console.error(message);
  process.exit(1);
}
