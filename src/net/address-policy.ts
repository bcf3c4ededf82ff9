import ipaddr from 'ipaddr.js';

/**
 * Which IP addresses igw may connect to when it fetches a URL a client gave it (image URLs,
 * URL ingestion): DESIGN §6 "refuse … private/loopback addresses unless
 * server.allow_private_urls". An allow-list, not a deny-list: only global unicast passes, so a
 * special-purpose range we did not think of is refused rather than reached. The range table is
 * ipaddr.js's (IANA special-purpose registries, kept up to date upstream).
 */

export interface AddressVerdict {
  allowed: boolean;
  /** ipaddr.js range name (`loopback`, `private`, `uniqueLocal`, …), or `invalid`. */
  range: string;
}

/** IPv6 global unicast is 2000::/3 (RFC 4291 §2.4); anything outside it is not the public internet. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3') as [ipaddr.IPv6, number];

/**
 * Classifies one literal address (`10.0.0.1`, `::1`, `::ffff:10.0.0.1`, `fe80::1%eth0`).
 * Public: IPv4 `unicast`, IPv6 `unicast` inside 2000::/3. IPv4-mapped IPv6 is judged as the IPv4
 * address it carries (`::ffff:10.0.0.1` is private). NAT64, 6to4 and Teredo prefixes embed an
 * IPv4 address too and are refused as a range of their own.
 */
export function classifyAddress(address: string): AddressVerdict {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(stripBrackets(address));
  } catch {
    return { allowed: false, range: 'invalid' };
  }
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) return classifyAddress(v6.toIPv4Address().toString());
    const range = v6.range();
    return { allowed: range === 'unicast' && v6.match(GLOBAL_UNICAST_V6), range };
  }
  const range = parsed.range();
  return { allowed: range === 'unicast', range };
}

/** True when the address is on the public internet (see classifyAddress). */
export function isPublicAddress(address: string): boolean {
  return classifyAddress(address).allowed;
}

/** `[::1]` (URL host form) → `::1`. */
export function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}
