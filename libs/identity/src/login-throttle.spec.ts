import { describe, expect, it } from 'vitest';
import { loginThrottleKeys } from './login-throttle.js';

describe('loginThrottleKeys', () => {
  it('counts an attempt against its account and its client network, holding no address in clear', () => {
    const [account, address] = loginThrottleKeys('digest-1', '203.0.113.7');
    expect(account).toBe('account:digest-1');
    expect(address).toMatch(/^address:[0-9a-f]{64}$/);
    expect(address).not.toContain('203.0.113.7');
  });

  it('counts the addresses of one IPv6 /64 as one client, and an IPv4-mapped address as its IPv4 address', () => {
    const network = (ip: string) => loginThrottleKeys('d', ip)[1];
    expect(network('2001:db8:1:2::1')).toBe(network('2001:db8:1:2:ffff:eeee:dddd:cccc'));
    expect(network('2001:db8:1:3::1')).not.toBe(network('2001:db8:1:2::1'));
    expect(network('::ffff:203.0.113.7')).toBe(network('203.0.113.7'));
    expect(network('203.0.113.8')).not.toBe(network('203.0.113.7'));
  });
});
