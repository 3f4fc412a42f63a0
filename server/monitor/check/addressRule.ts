/**
 * Which addresses the uptime monitor may connect to: the SSRF rule of the
 * OWASP Server-Side Request Forgery Prevention Cheat Sheet for a service
 * that must reach "any external host" (case 2): the URL is the customer's,
 * so no allow list of names can exist, and the defence is to refuse every
 * address that is not a public unicast one, after resolving the name and
 * before connecting.
 *
 * The special-purpose ranges are those of the IANA registries that RFC 6890
 * set up (loopback, private, link-local with the cloud metadata addresses,
 * carrier-grade NAT, documentation, benchmarking, NAT64, 6to4, Teredo, …),
 * as ipaddr.js classifies them; IPv6 is further held to 2000::/3, the
 * global unicast space (RFC 4291 §2.4), so that whatever the library does
 * not name is refused rather than passed.
 */
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** One network of `MONITOR_ALLOWED_NETWORKS`, e.g. `{ network: '10.0.0.0', prefixLength: 8 }`. */
export interface AllowedNetwork {
  /** The network address, as ipaddr.js prints it (`10.0.0.0`, `fd00::`). */
  readonly network: string;
  /** The CIDR prefix length: 0–32 for IPv4, 0–128 for IPv6. */
  readonly prefixLength: number;
}

/** Whether the monitor may connect to an address (true: it may). */
export type AddressRule = (address: string) => boolean;

/** 2000::/3: the only IPv6 space assigned as global unicast (RFC 4291 §2.4). */
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');

/**
 * The NAT64 prefixes whose addresses carry an IPv4 address in their last
 * 32 bits: the well-known `64:ff9b::/96` (RFC 6052 §2.1) and the local-use
 * `64:ff9b:1::/48` (RFC 8215), inside which a network uses a /96. A
 * translator connects to the IPv4 address inside, so that address is
 * judged too.
 */
const NAT64_PREFIXES = [
  ipaddr.IPv6.parseCIDR('64:ff9b::/96'),
  ipaddr.IPv6.parseCIDR('64:ff9b:1::/48'),
];

/**
 * `MONITOR_DENIED_NETWORKS`' default: Azure's platform address (its
 * metadata and DNS, reachable from every Azure VM), which is public in
 * every registry, so the public rule alone lets it through.
 */
export const DEFAULT_DENIED_NETWORKS = '168.63.129.16/32';

/**
 * Parses an address the way a check meets it (from a resolver, or a URL's
 * host after WHATWG parsing), unwrapping an IPv4-mapped IPv6 address
 * (`::ffff:127.0.0.1`) to the IPv4 address it carries, as the kernel would
 * connect to it.
 *
 * Only the canonical textual forms that `net.isIP` accepts are read
 * (dotted-quad IPv4 and RFC 4291 IPv6): ipaddr.js alone would also read
 * `0x7f.1` or `017700000001`, forms other software reads differently, and
 * a zone id (`fe80::1%eth0`) names an interface, never a public host.
 *
 * @returns the parsed address, or undefined for anything else
 */
function parseAddress(address: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  if (address.includes('%') || isIP(address) === 0) return undefined;
  try {
    return ipaddr.process(address);
  } catch {
    return undefined;
  }
}

/**
 * The IPv4 address a NAT64 address carries in its last 32 bits (RFC 6052
 * §2.2), as its translator connects to it.
 *
 * @returns the IPv4 address, or undefined for an address outside
 *   {@link NAT64_PREFIXES}
 */
function nat64Inner(parsed: ipaddr.IPv4 | ipaddr.IPv6): string | undefined {
  if (
    parsed.kind() !== 'ipv6' ||
    !NAT64_PREFIXES.some((prefix) => parsed.match(prefix))
  ) {
    return undefined;
  }
  return new ipaddr.IPv4(parsed.toByteArray().slice(12)).toString();
}

/**
 * Whether an address may be checked: a public unicast address.
 *
 * @param address an IP address in canonical text form (`93.184.216.34`,
 *   `2606:4700:4700::1111`); an IPv4-mapped IPv6 address is judged as the
 *   IPv4 address it carries
 * @returns true only for an address ipaddr.js classifies as `unicast` (no
 *   special-purpose range of RFC 6890's registries), and, for IPv6, inside
 *   2000::/3; false for every other address, for an address with a zone id
 *   and for anything that is not an address. Never throws.
 * @see OWASP SSRF Prevention Cheat Sheet, "Case 2: any external host"
 */
export function isPublicAddress(address: string): boolean {
  const parsed = parseAddress(address);
  if (!parsed || parsed.range() !== 'unicast') return false;
  return parsed.kind() === 'ipv4' || parsed.match(GLOBAL_UNICAST_V6);
}

/**
 * Reads `MONITOR_ALLOWED_NETWORKS`: networks the monitor may reach though
 * they are not public, for a deployment that monitors its own private
 * network, and for the tests (127.0.0.0/8).
 *
 * Each entry must be a network in CIDR notation whose host bits are zero
 * (`10.0.0.0/8`, not `10.0.0.1/8`, which is more likely a typing mistake
 * than a network), without a zone id.
 *
 * @param raw the variable's value: entries separated by commas and/or
 *   white space, e.g. `"10.0.0.0/8, fd00::/8"`
 * @returns the networks in order; empty when `raw` is unset, empty or
 *   blank
 * @throws Error naming MONITOR_ALLOWED_NETWORKS and the entry when an
 *   entry is not such a network
 */
export function parseAllowedNetworks(
  raw: string | undefined,
): AllowedNetwork[] {
  return parseNetworks('MONITOR_ALLOWED_NETWORKS', raw);
}

/**
 * Reads `MONITOR_DENIED_NETWORKS`: networks the monitor never reaches,
 * though they are public (or allowed).
 *
 * @param raw the variable's value, as {@link parseAllowedNetworks} reads
 *   it; unset or blank: {@link DEFAULT_DENIED_NETWORKS}
 * @returns the networks in order
 * @throws Error naming MONITOR_DENIED_NETWORKS and the entry when an entry
 *   is not a network in CIDR notation with its host bits zero
 */
export function parseDeniedNetworks(raw: string | undefined): AllowedNetwork[] {
  return parseNetworks(
    'MONITOR_DENIED_NETWORKS',
    raw?.trim() ? raw : DEFAULT_DENIED_NETWORKS,
  );
}

function parseNetworks(
  variable: string,
  raw: string | undefined,
): AllowedNetwork[] {
  // Runs of separators leave empty entries, which are dropped.
  const entries = (raw ?? '').split(/[\s,]/).filter((entry) => entry !== '');
  return entries.map((entry) => {
    const problem = `${variable}: "${entry}" is not a network in CIDR notation, like 10.0.0.0/8 or fd00::/8`;
    // A zone id names an interface; ipaddr.js would read it as a network.
    if (entry.includes('%')) throw new Error(problem);
    // ipaddr.js checks the prefix; `net.isIP` the address's form, refusing
    // the forms ipaddr.js alone would read (`0x0a.0.0.0`).
    const address = entry.slice(0, entry.lastIndexOf('/'));
    if (!ipaddr.isValidCIDR(entry) || isIP(address) === 0) {
      throw new Error(problem);
    }
    const [parsed, prefixLength] = ipaddr.parseCIDR(entry);
    const network =
      parsed.kind() === 'ipv4'
        ? ipaddr.IPv4.networkAddressFromCIDR(entry)
        : ipaddr.IPv6.networkAddressFromCIDR(entry);
    if (network.toString() !== parsed.toString()) {
      throw new Error(
        `${variable}: "${entry}" has host bits set; did you mean ${network.toString()}/${prefixLength}?`,
      );
    }
    return { network: network.toString(), prefixLength };
  });
}

/**
 * The rule a check applies to every address it would connect to: not in a
 * denied network, and public or inside one of the allowed networks.
 *
 * @param allowed networks from {@link parseAllowedNetworks}; empty for the
 *   public internet only
 * @param denied networks from {@link parseDeniedNetworks}, refused even
 *   when public or allowed; default none
 * @returns a rule that is false for an address inside one of `denied`, and
 *   otherwise true for an address {@link isPublicAddress} passes or that
 *   lies inside one of `allowed` (an IPv4-mapped address is judged as the
 *   IPv4 address it carries; a NAT64 address, allowed, only when the IPv4
 *   address it carries passes too); false for anything that is not a
 *   canonical address. Never throws.
 * @see OWASP SSRF Prevention Cheat Sheet, "Case 2: any external host"
 */
export function addressRule(
  allowed: readonly AllowedNetwork[],
  denied: readonly AllowedNetwork[] = [],
): AddressRule {
  const ranges = (networks: readonly AllowedNetwork[]) =>
    networks.map(({ network, prefixLength }) =>
      ipaddr.parseCIDR(`${network}/${prefixLength}`),
    );
  const allowedRanges = ranges(allowed);
  const deniedRanges = ranges(denied);
  const inside = (
    parsed: ipaddr.IPv4 | ipaddr.IPv6,
    networks: ReturnType<typeof ranges>,
  ) =>
    networks.some(
      ([network, prefixLength]) =>
        network.kind() === parsed.kind() && parsed.match(network, prefixLength),
    );
  const rule: AddressRule = (address) => {
    const parsed = parseAddress(address);
    if (!parsed || inside(parsed, deniedRanges)) return false;
    // A NAT64 address is never public; allowed, it is checked only when
    // the IPv4 address behind it would be.
    const inner = nat64Inner(parsed);
    if (inner !== undefined) {
      return inside(parsed, allowedRanges) && rule(inner);
    }
    return isPublicAddress(address) || inside(parsed, allowedRanges);
  };
  return rule;
}
