import ipaddr from 'ipaddr.js';

/**
 * The network a client address stands for, as address-based limits count it: an IPv4 address
 * itself (an IPv4-mapped IPv6 address as its IPv4), an IPv6 address as its /64, since one
 * subscriber commonly holds a whole /64 and could otherwise take a fresh address per request.
 */
export function clientNetwork(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  if (parsed.kind() === 'ipv4') return parsed.toString();
  return (
    (parsed as ipaddr.IPv6).parts
      .slice(0, 4)
      .map((part) => part.toString(16))
      .join(':') + '::/64'
  );
}
