import type { Server } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { Logger } from 'pino';
import { clientNetwork } from '../auth/client-network.js';

/** How often, at most, a network's refused connections are logged (a flood would log each one). */
const LOG_EVERY_MS = 60_000;

/**
 * Caps the connections one client network (an IPv4 address, an IPv6 /64: clientNetwork) holds open
 * at once (docs/operations.md, "Connections"). A connection past the cap is closed as it is
 * accepted, before a byte of it is read. Held connections cost the server nothing but a file
 * descriptor each, and a red team's 20,000 sockets that sent a request's headers and then nothing
 * took every descriptor the process had: health checks and every organization's requests were
 * refused until the client let go. The operator's proxies (WARDEN_TRUSTED_PROXIES) carry many
 * clients' connections, and are not capped.
 */
export function capConnectionsPerClient(server: Server, cap: number, trustedProxies: readonly string[], logger: Logger): void {
  if (cap <= 0) return;
  // Ranges and addresses compared as IPv4 where they are IPv4-mapped IPv6 (`::ffff:10.0.0.0/104`
  // is 10.0.0.0/8): a dual-stack socket reports an IPv4 client that way.
  const proxies = trustedProxies.map((range) => asIPv4Range(ipaddr.parseCIDR(range)));
  const isProxy = (address: string): boolean => {
    if (!ipaddr.isValid(address)) return false;
    const parsed = asIPv4(ipaddr.parse(address));
    return proxies.some(([range, bits]) => range.kind() === parsed.kind() && parsed.match([range, bits]));
  };
  const open = new Map<string, number>();
  const loggedAt = new Map<string, number>();
  server.on('connection', (socket) => {
    const address = socket.remoteAddress;
    if (address === undefined || isProxy(address)) return;
    const network = clientNetwork(address);
    const held = open.get(network) ?? 0;
    if (held >= cap) {
      socket.destroy();
      const now = Date.now();
      if (now - (loggedAt.get(network) ?? 0) >= LOG_EVERY_MS) {
        // Many networks at once (IPv6 /64s are cheap): the memory of when each was logged stays bounded.
        if (loggedAt.size >= 10_000) loggedAt.clear();
        loggedAt.set(network, now);
        logger.warn({ msg: 'connection refused: the client network holds as many as it may', network, cap });
      }
      return;
    }
    open.set(network, held + 1);
    socket.once('close', () => {
      const left = (open.get(network) ?? 1) - 1;
      if (left > 0) open.set(network, left);
      else open.delete(network);
    });
  });
}

function asIPv4(address: ipaddr.IPv4 | ipaddr.IPv6): ipaddr.IPv4 | ipaddr.IPv6 {
  return address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress() ? (address as ipaddr.IPv6).toIPv4Address() : address;
}

function asIPv4Range([range, bits]: [ipaddr.IPv4 | ipaddr.IPv6, number]): [ipaddr.IPv4 | ipaddr.IPv6, number] {
  const mapped = asIPv4(range);
  return mapped === range ? [range, bits] : [mapped, Math.max(0, bits - 96)];
}
