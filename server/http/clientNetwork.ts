/**
 * The client's network: what the service keeps of a client's address, in
 * its log lines (server/http/logging.ts) and in the consent records
 * (server/consent/), never the address itself.
 */
import ipaddr from 'ipaddr.js';

/**
 * The network a client address belongs to, the part stored with a consent
 * record (ADR-0065): IPv4 truncated to /24, IPv6 to /48 (the prefix a site is
 * assigned, RFC 6177), an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`,
 * RFC 4291 §2.5.5.2) as the IPv4 address it is.
 *
 * @param address an IPv4 or IPv6 address, as Fastify's `request.ip` gives
 *   it (an IPv6 zone, `%eth0`, is ignored)
 * @returns CIDR notation with the host bits zero, IPv6 as RFC 5952 writes
 *   it (`2001:db8:1::/48`); undefined when `address` is not an IP address
 */
export function networkOf(address: string): string | undefined {
  const bare = address.split('%', 1)[0] ?? '';
  // Only the forms a socket reports: four decimal parts, or IPv6 (not
  // `203.0.113`, which ipaddr.js would read as 203.0.0.113).
  if (!ipaddr.IPv4.isValidFourPartDecimal(bare) && !ipaddr.IPv6.isValid(bare)) {
    return undefined;
  }
  // `process` reads an IPv4-mapped IPv6 address as its IPv4 address.
  const parsed = ipaddr.process(bare);
  const prefix = parsed.kind() === 'ipv4' ? 24 : 48;
  const network =
    parsed.kind() === 'ipv4'
      ? ipaddr.IPv4.networkAddressFromCIDR(`${parsed.toString()}/${prefix}`)
      : ipaddr.IPv6.networkAddressFromCIDR(`${parsed.toString()}/${prefix}`);
  // ipaddr.js writes IPv6 as RFC 5952 does.
  return `${network.toString()}/${prefix}`;
}
