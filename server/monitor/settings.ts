/**
 * The monitor's configuration (docs/contract.md, "Configuration"; ADR-0104 and
 * ADR-0108): `MONITOR`, `MONITOR_INTERVAL_SECONDS`,
 * `MONITOR_CONCURRENCY`, `MONITOR_ALLOWED_NETWORKS`,
 * `MONITOR_DENIED_NETWORKS`, `MONITOR_DNS_SERVERS`
 * and `MONITOR_RESOLVE`,
 * read once at start, and what the start says about them.
 */
import { Resolver as DnsResolver } from 'node:dns/promises';
import { isIP } from 'node:net';
import {
  parseAllowedNetworks,
  parseDeniedNetworks,
  type AllowedNetwork,
} from './check/addressRule';
import type { CheckObservation } from './scheduler';
import type { CheckSettings, Resolver } from './check/siteCheck';

/** Every variable the service reads; unset and empty mean "the default". */
type Environment = Partial<Record<string, string | undefined>>;

/** How an instance checks sites (`ServerOptions.monitor`). */
export interface MonitorOptions {
  /** Between two checks of a site, in ms (`MONITOR_INTERVAL_SECONDS`). */
  intervalMs: number;
  /**
   * Checks working at once on this instance (`MONITOR_CONCURRENCY`); one
   * that waits for its site past `slotHoldMs` waits outside them.
   */
  concurrency: number;
  /** How long a check holds its slot, ms (default 1 s; tests shorten it). */
  slotHoldMs?: number;
  /**
   * Networks checked although they are not public
   * (`MONITOR_ALLOWED_NETWORKS`); none by default.
   */
  allowedNetworks: readonly AllowedNetwork[];
  /**
   * Networks never checked, though public or allowed
   * (`MONITOR_DENIED_NETWORKS`); undefined: `168.63.129.16/32`.
   */
  deniedNetworks?: readonly AllowedNetwork[];
  /**
   * Names resolved from this list only, never by the host's resolver
   * (`MONITOR_RESOLVE`, as curl's `--resolve` pins them): for tests and
   * isolated setups. Undefined: the host's resolver.
   */
  pins?: ReadonlyMap<string, string>;
  /**
   * The DNS servers the checks ask (`MONITOR_DNS_SERVERS`, as
   * `dns.setServers` takes them); undefined: the host's.
   */
  dnsServers?: readonly string[];
  /**
   * URLs the operator trusts to be up (`MONITOR_CANARY_URLS`, two or
   * more), checked with the same rules: when most fail, this instance's
   * failed checks are inconclusive (ADR-0122). None by default.
   */
  canaryUrls?: readonly string[];
  /** The resolver, for tests in this process; wins over `pins`. */
  resolve?: Resolver;
  /** Told of every connection before it is made: tests' tripwire. */
  beforeConnect?: CheckSettings['beforeConnect'];
  /** Extra certificate authorities: tests' own. */
  ca?: CheckSettings['ca'];
  /** The check's time boxes (default 5 s, 10 s, 15 s). */
  timeouts?: CheckSettings['timeouts'];
  /** An alert channel's POST's time boxes (default connect 5 s, 10 s in all; tests shorten them). */
  postTimeouts?: Partial<{ connectMs: number; totalMs: number }>;
  /** How long a claim holds, in ms (default {@link DEFAULT_LEASE_MS}). */
  leaseMs?: number;
  /** How often an idle instance looks for due sites, ms (default 1 s). */
  pollMs?: number;
  /** The clock (default the host's): tests hold it. */
  clock?: () => Date;
  /** Start checking when the server is built (default true). */
  autoStart?: boolean;
  /** Told of every check written (`npm run bench:monitor`). */
  observe?: (observation: CheckObservation) => void;
}

/** The default interval (`MONITOR_INTERVAL_SECONDS`), in seconds. */
export const DEFAULT_INTERVAL_SECONDS = 60;
/** The shortest interval an operator may set, in seconds. */
export const MIN_INTERVAL_SECONDS = 5;
/** The default number of checks at once (`MONITOR_CONCURRENCY`). */
export const DEFAULT_CONCURRENCY = 50;
/**
 * A claim's lease: four times a check's longest run (15 s), so that a
 * slow write never lets another instance check the site twice, and a
 * killed instance's sites are checked again within a minute.
 */
export const DEFAULT_LEASE_MS = 60_000;

function integerOf(
  env: Environment,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < min || value > max) {
    throw new Error(
      `${name} must be a whole number from ${min} to ${max}; got "${raw}"`,
    );
  }
  return value;
}

/**
 * `MONITOR_RESOLVE`: `name=address` pairs, comma-separated
 * (`site.test=127.0.0.1, other.test=::1`).
 *
 * @returns the pins by lower-case name; undefined when unset
 * @throws Error naming the variable for a pair that is not a name and an
 *   IP address
 */
export function parsePins(
  raw: string | undefined,
): ReadonlyMap<string, string> | undefined {
  if (!raw?.trim()) return undefined;
  const pins = new Map<string, string>();
  for (const entry of raw.split(',')) {
    const [name, address, ...rest] = entry.trim().split('=');
    if (!name || !address || rest.length > 0 || isIP(address.trim()) === 0) {
      throw new Error(
        `MONITOR_RESOLVE must be name=address pairs, like site.test=127.0.0.1; got "${entry.trim()}"`,
      );
    }
    pins.set(name.trim().toLowerCase().replace(/\.$/, ''), address.trim());
  }
  return pins;
}

/**
 * `MONITOR_DNS_SERVERS`: DNS servers, comma-separated, each an address with
 * an optional port (`192.0.2.53`, `127.0.0.1:5353`, `[2001:db8::53]:53`).
 *
 * @returns the servers; undefined when unset (the host's resolvers)
 * @throws Error naming the variable for an entry that is not one
 */
export function parseDnsServers(
  raw: string | undefined,
): readonly string[] | undefined {
  if (!raw?.trim()) return undefined;
  const servers = raw.split(',').map((entry) => entry.trim());
  for (const server of servers) {
    try {
      new DnsResolver().setServers([server]);
    } catch {
      throw new Error(
        `MONITOR_DNS_SERVERS must be DNS server addresses with an optional port, like 192.0.2.53 or 127.0.0.1:5353 or [2001:db8::53]:53; got "${server}"`,
      );
    }
  }
  return servers;
}

/**
 * A resolver that answers from pins only: a name not pinned does not
 * exist, and no name is ever looked up.
 */
export function pinnedResolver(pins: ReadonlyMap<string, string>): Resolver {
  return async (hostname) => {
    const address = pins.get(hostname.toLowerCase().replace(/\.$/, ''));
    if (address === undefined) {
      throw Object.assign(new Error(`${hostname} is not pinned`), {
        code: 'ENOTFOUND',
      });
    }
    return [{ address, family: isIP(address) === 6 ? 6 : 4 }];
  };
}

/**
 * The monitor's options from the environment.
 *
 * @returns undefined for `MONITOR=off` (an instance that checks nothing:
 *   a web-only node); otherwise the interval (default 60 s, at least 5),
 *   the concurrency (default 50), the allowed networks and the pins
 * @throws Error naming the variable when a value cannot be used
 */
export function monitorOptionsFrom(
  env: Environment,
): MonitorOptions | undefined {
  const mode = env.MONITOR?.trim().toLowerCase() || 'on';
  if (mode !== 'on' && mode !== 'off') {
    throw new Error(`MONITOR must be on or off; got "${env.MONITOR?.trim()}"`);
  }
  // Read even when off, so that a wrong value is found at the first start.
  const intervalSeconds = integerOf(
    env,
    'MONITOR_INTERVAL_SECONDS',
    DEFAULT_INTERVAL_SECONDS,
    MIN_INTERVAL_SECONDS,
    24 * 60 * 60,
  );
  const concurrency = integerOf(
    env,
    'MONITOR_CONCURRENCY',
    DEFAULT_CONCURRENCY,
    1,
    10_000,
  );
  const allowedNetworks = parseAllowedNetworks(env.MONITOR_ALLOWED_NETWORKS);
  const deniedNetworks = parseDeniedNetworks(env.MONITOR_DENIED_NETWORKS);
  const pins = parsePins(env.MONITOR_RESOLVE);
  const dnsServers = parseDnsServers(env.MONITOR_DNS_SERVERS);
  const canaryUrls = parseCanaryUrls(env.MONITOR_CANARY_URLS);
  if (mode === 'off') return undefined;
  return {
    intervalMs: intervalSeconds * 1000,
    concurrency,
    allowedNetworks,
    deniedNetworks,
    ...(pins && { pins }),
    ...(dnsServers && { dnsServers }),
    ...(canaryUrls.length > 0 && { canaryUrls }),
  };
}

/** The default number of sites an account may have (`SITES_PER_ACCOUNT`). */
export const DEFAULT_SITES_PER_ACCOUNT = 20;

/** What every instance needs of an account's sites, checking or not (ADR-0127). */
export interface SitesOptions {
  /** `SITES_PER_ACCOUNT`: the most sites an account may have. */
  perAccount: number;
  /** `MONITOR_INTERVAL_SECONDS` in ms: a site's interval is a multiple of it. */
  intervalMs: number;
}

/**
 * The sites' options, read whether or not this instance checks (a web
 * node's form offers the intervals the checking nodes keep).
 *
 * @param env the environment
 * @returns `SITES_PER_ACCOUNT` (default 20, 1 to 1,000) and the base
 *   interval
 * @throws Error naming the variable when a value cannot be used
 */
export function sitesOptionsFrom(env: Environment): SitesOptions {
  return {
    perAccount: integerOf(
      env,
      'SITES_PER_ACCOUNT',
      DEFAULT_SITES_PER_ACCOUNT,
      1,
      1_000,
    ),
    intervalMs:
      integerOf(
        env,
        'MONITOR_INTERVAL_SECONDS',
        DEFAULT_INTERVAL_SECONDS,
        MIN_INTERVAL_SECONDS,
        24 * 60 * 60,
      ) * 1000,
  };
}

/**
 * `MONITOR_CANARY_URLS`: absolute `http:` or `https:` URLs, separated by
 * commas or white space, at least two (one canary that fails cannot be
 * told from the instance cut off, ADR-0122).
 *
 * @param raw the variable's value; unset or empty: none
 * @returns the URLs, as the WHATWG URL parser serialises them
 * @throws Error naming the variable for a value that is not such a URL,
 *   or a single URL
 */
export function parseCanaryUrls(raw: string | undefined): string[] {
  const items = (raw ?? '').split(/[\s,]+/).filter((item) => item !== '');
  const urls = items.map((item) => {
    const url = URL.parse(item);
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      throw new Error(
        `MONITOR_CANARY_URLS must list http: or https: URLs; got "${item}"`,
      );
    }
    return url.href;
  });
  if (urls.length === 1) {
    throw new Error(
      'MONITOR_CANARY_URLS needs two or more URLs: when one fails, it cannot tell this machine cut off from that site down',
    );
  }
  return urls;
}

/** What the start says about the checks: how often and how many, or off. */
export function monitorNotice(options: MonitorOptions | undefined): string {
  if (!options) {
    return 'Checks: off (MONITOR=off); this instance checks no site, and its "Check now" leaves the check to an instance that does';
  }
  return `Checks: every ${Math.round(options.intervalMs / 1000)} s, up to ${options.concurrency} at once`;
}

/**
 * What the start warns about: networks that are checked although they are
 * not public, and names pinned instead of resolved.
 */
export function monitorWarnings(options: MonitorOptions | undefined): string[] {
  const warnings: string[] = [];
  if (options && options.allowedNetworks.length > 0) {
    warnings.push(
      `MONITOR_ALLOWED_NETWORKS is set: sites in ${options.allowedNetworks.map((network) => `${network.network}/${network.prefixLength}`).join(', ')} are checked although they are not public, so anyone who signs up can make this service send requests there. Unset it unless this deployment watches its own network.`,
    );
  }
  if (options && !options.canaryUrls?.length) {
    warnings.push(
      'MONITOR_CANARY_URLS is not set: if this machine loses its network, every site it checks reads as down and every customer is mailed. Name two or more URLs you trust to be up.',
    );
  }
  if (options?.pins) {
    warnings.push(
      `MONITOR_RESOLVE is set: site names are resolved from its ${options.pins.size} pin(s) only, and every other name is reported as not existing. It exists for tests; unset it.`,
    );
  }
  return warnings;
}
