// npm test's second step: the inbound-topic tests (docs/inbound-topic.md) start a real NATS
// JetStream broker, Debian's nats-server package.
import { ensureDebianPackage } from './ensure-debian-package.mjs';

ensureDebianPackage({ pkg: 'nats-server', binary: '/usr/sbin/nats-server', envVar: 'WARDEN_NATS_SERVER', why: 'The inbound-topic tests need a NATS broker' });
