// npm test's second step: the inbound-topic tests (docs/inbound-topic.md) start a real NATS
// JetStream broker, Debian's nats-server package, and a fresh machine has none. Installs it
// through apt when it is missing (as root, or with sudo that asks no password); otherwise stops
// with what to run. Never downloads a broker elsewhere, and the tests never skip without one.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const NATS_SERVER = process.env.WARDEN_NATS_SERVER ?? '/usr/sbin/nats-server';
if (existsSync(NATS_SERVER)) process.exit(0);
if (process.env.WARDEN_NATS_SERVER) {
  console.error(`WARDEN_NATS_SERVER=${NATS_SERVER} does not exist`);
  process.exit(1);
}
const root = process.getuid?.() === 0;
const run = (args) => execFileSync(root ? args[0] : 'sudo', root ? args.slice(1) : ['-n', ...args], {
  stdio: ['ignore', 'ignore', 'inherit'],
  env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
});
try {
  console.error('The inbound-topic tests need a NATS broker: installing Debian\'s package (apt-get install nats-server)…');
  run(['apt-get', 'update', '-qq']);
  run(['apt-get', 'install', '-y', '-qq', 'nats-server']);
} catch (error) {
  console.error(`Could not install nats-server (${error instanceof Error ? error.message.split('\n')[0] : error}).`);
  console.error('Install it with `sudo apt-get install nats-server` (or set WARDEN_NATS_SERVER to a nats-server binary) and run npm test again.');
  process.exit(1);
}
if (!existsSync(NATS_SERVER)) {
  console.error(`apt-get finished but ${NATS_SERVER} is missing`);
  process.exit(1);
}
