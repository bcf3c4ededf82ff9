import { describe, expect, it } from 'vitest';
import { classifyAddress, isPublicAddress } from '../../../src/net/address-policy.js';

describe('address policy (DESIGN §6: no private/loopback URLs unless allow_private_urls)', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.254', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['100.127.255.254', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['224.0.0.251', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['192.0.2.10', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['::', 'unspecified'],
    ['fc00::1', 'uniqueLocal'],
    ['fd12:3456::1', 'uniqueLocal'],
    ['fe80::1', 'linkLocal'],
    ['fe80::1%eth0', 'linkLocal'],
    ['ff02::1', 'multicast'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['64:ff9b::a00:1', 'rfc6052'],
    ['2002:a00:1::1', '6to4'],
    ['2001:db8::1', 'reserved'],
    ['not-an-ip', 'invalid'],
  ])('refuses %s (%s)', (address, range) => {
    expect(classifyAddress(address)).toEqual({ allowed: false, range });
    expect(isPublicAddress(address)).toBe(false);
  });

  it('refuses IPv4-compatible IPv6 (::/96), which lies outside global unicast 2000::/3', () => {
    expect(classifyAddress('::7f00:1').allowed).toBe(false);
    expect(classifyAddress('::a00:1').allowed).toBe(false);
  });

  it.each(['8.8.8.8', '1.1.1.1', '93.184.216.34', '172.32.0.1', '100.128.0.1', '11.0.0.1', '2606:4700:4700::1111', '2a00:1450:4001:81c::200e', '::ffff:8.8.8.8'])(
    'allows the public address %s',
    (address) => {
      expect(classifyAddress(address).allowed).toBe(true);
      expect(isPublicAddress(address)).toBe(true);
    },
  );
});
