/**
 * What keeps the monitor's tests on loopback: a tripwire for
 * `CheckSettings.beforeConnect` that throws before any connection outside
 * 127.0.0.0/8 and ::1 (and remembers it, so that a test can fail on it even
 * when the check turned the throw into a 'down' result), and a resolver
 * that answers test names from a fixed table instead of asking DNS.
 *
 * No test of the monitor may resolve a real name or send a packet beyond
 * loopback: every check a test runs gets both.
 */
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { Resolver } from '../../server/monitor/check/siteCheck';

/** One connection a check was about to open. */
export interface ConnectionAttempt {
  address: string;
  port: number;
}

export interface Tripwire {
  /** Pass as `CheckSettings.beforeConnect`. */
  beforeConnect: (address: string, port: number) => void;
  /** Every connection the check was about to open, in order. */
  readonly attempts: readonly ConnectionAttempt[];
  /** The attempts outside loopback that it refused (none, in a passing test). */
  readonly violations: readonly ConnectionAttempt[];
}

/**
 * Whether an address is loopback in the strict sense the tests allow:
 * IPv4 127.0.0.0/8 or exactly ::1 (not an IPv4-mapped form, not a name).
 */
export function isLoopback(address: string): boolean {
  if (isIP(address) === 4) {
    return ipaddr.IPv4.parse(address).match(ipaddr.IPv4.parse('127.0.0.0'), 8);
  }
  return isIP(address) === 6 && ipaddr.IPv6.parse(address).toString() === '::1';
}

/**
 * Makes a tripwire for one check (or one test).
 *
 * @returns a {@link Tripwire}; its `beforeConnect` records every attempt,
 *   and throws an Error naming the address for one outside loopback (see
 *   {@link isLoopback}) after recording it in `violations`
 */
export function loopbackTripwire(): Tripwire {
  const attempts: ConnectionAttempt[] = [];
  const violations: ConnectionAttempt[] = [];
  return {
    attempts,
    violations,
    beforeConnect(address, port) {
      attempts.push({ address, port });
      if (!isLoopback(address)) {
        violations.push({ address, port });
        throw new Error(
          `Tripwire: a test tried to connect to ${address}:${port}, outside loopback`,
        );
      }
    },
  };
}

/**
 * What a test resolver answers for one name: a list of addresses, or a
 * function of the call number (1 for the first call for that name) for an
 * answer that changes, as in DNS rebinding.
 */
export type TestAnswer =
  readonly string[] | ((call: number) => readonly string[]);

export interface TestResolver {
  /** Pass as `CheckSettings.resolve`. */
  resolve: Resolver;
  /** Every name asked, in order. */
  readonly calls: readonly string[];
}

/**
 * A resolver over a fixed table, never DNS.
 *
 * @param table name (lowercase, e.g. `site.test`) → {@link TestAnswer}; an
 *   empty list answers "no addresses", as a name with no A or AAAA record
 * @returns a {@link TestResolver}; its `resolve` answers each address with
 *   its family (4 or 6), and rejects a name not in the table with an Error
 *   whose `code` is `ENOTFOUND`, as `dns.promises.lookup` does
 */
export function testResolver(
  table: Readonly<Record<string, TestAnswer>>,
): TestResolver {
  const calls: string[] = [];
  return {
    calls,
    async resolve(hostname) {
      calls.push(hostname);
      const answer = Object.hasOwn(table, hostname) ? table[hostname] : null;
      if (!answer) {
        throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), {
          code: 'ENOTFOUND',
          hostname,
        });
      }
      const call = calls.filter((name) => name === hostname).length;
      const addresses = typeof answer === 'function' ? answer(call) : answer;
      return addresses.map((address) => ({
        address,
        family: isIP(address) === 6 ? (6 as const) : (4 as const),
      }));
    },
  };
}

/**
 * A resolver that never answers, for a check whose whole time runs out
 * while it resolves.
 */
export const silentResolver: Resolver = () => new Promise(() => undefined);
