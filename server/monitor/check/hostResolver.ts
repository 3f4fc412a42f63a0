/**
 * The monitor's name resolution (issue 58): the host's hosts file first,
 * as for every program on the host, then DNS through a resolver of the
 * monitor's own.
 *
 * Not `dns.lookup`: that is the C library's `getaddrinfo` on libuv's thread
 * pool (four threads), and a lookup the check abandons keeps its thread
 * until the system resolver gives up, about 10 s later. A dozen names on a
 * slow authoritative server then held every thread, and every other check
 * timed out. This resolver is c-ares (`dns.promises.Resolver`): queries on
 * the event loop, each with its own time-out and tries, so a name that
 * never answers holds nothing another check needs.
 */
import { Resolver as DnsResolver } from 'node:dns/promises';
import { readFile, stat } from 'node:fs/promises';
import { isIP } from 'node:net';
import type { Resolver } from './siteCheck';

export interface HostResolverOptions {
  /**
   * The DNS servers, as `dns.setServers` takes them (`192.0.2.53`,
   * `127.0.0.1:5353`, `[2001:db8::53]:53`); default: the host's
   * (`/etc/resolv.conf`, read by Node.js at start).
   */
  servers?: readonly string[];
  /** The hosts file; default `/etc/hosts`. */
  hostsFile?: string;
  /** One try's time-out, in ms (default 2,000; c-ares doubles it per try). */
  timeoutMs?: number;
  /** Tries per server (default 2). */
  tries?: number;
  /** How long the hosts file is trusted before it is looked at again (ms). */
  hostsTtlMs?: number;
}

/** A {@link Resolver} whose pending DNS queries can be ended at once. */
export interface HostResolver extends Resolver {
  /** Ends every pending query: each rejects with `ECANCELLED`. */
  cancel(): void;
}

/** A hosts file's names and their addresses, in the file's order. */
export type HostsTable = ReadonlyMap<string, readonly string[]>;

/**
 * Reads a hosts file's text (hosts(5)): an address, then its names, one
 * entry a line; `#` starts a comment. Names are matched without case and
 * without a final dot; a line whose first field is not an IP address, or
 * an address with a zone (`fe80::1%eth0`), is skipped.
 *
 * @returns name → addresses, in the order the file gives them
 */
export function parseHosts(text: string): HostsTable {
  const table = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    const [address, ...names] = line.replace(/#.*/, '').trim().split(/\s+/);
    if (!address || address.includes('%') || isIP(address) === 0) continue;
    for (const name of names) {
      const key = normalName(name);
      const addresses = table.get(key) ?? [];
      if (!addresses.includes(address)) addresses.push(address);
      table.set(key, addresses);
    }
  }
  return table;
}

function normalName(name: string): string {
  return name.toLowerCase().replace(/\.$/, '');
}

/** What a query's error says of the name: it does not exist, or no answer. */
const NO_SUCH_NAME = new Set(['ENOTFOUND', 'ENODATA']);

function codeOf(reason: unknown): string {
  const code = (reason as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'ERROR';
}

/**
 * The monitor's resolver: a name in the hosts file gets the file's
 * addresses (and no query); any other gets its A and AAAA records, asked
 * side by side, IPv4 first.
 *
 * @param options see {@link HostResolverOptions}
 * @returns a {@link HostResolver}. It rejects with an error whose `code` is
 *   `ENOTFOUND` when neither query found an address (the name or its
 *   records do not exist), or the failing query's code (`ETIMEOUT`,
 *   `ESERVFAIL`, `ECONNREFUSED`, …) when one could not be answered
 * @throws Error naming the server when `servers` holds one `dns.setServers`
 *   refuses
 */
export function hostResolver(options: HostResolverOptions = {}): HostResolver {
  const dns = new DnsResolver({
    timeout: options.timeoutMs ?? 2_000,
    tries: options.tries ?? 2,
  });
  if (options.servers) dns.setServers([...options.servers]);
  const hostsFile = options.hostsFile ?? '/etc/hosts';
  const hostsTtlMs = options.hostsTtlMs ?? 5_000;
  let hosts: { table: HostsTable; mtimeMs: number; checkedAt: number } = {
    table: new Map(),
    mtimeMs: -1,
    checkedAt: -Infinity,
  };
  let reading: Promise<void> | undefined;

  /** The hosts file's table, read again when it has changed. */
  const hostsTable = async (): Promise<HostsTable> => {
    if (performance.now() - hosts.checkedAt >= hostsTtlMs) {
      reading ??= (async () => {
        try {
          const { mtimeMs } = await stat(hostsFile);
          const table =
            mtimeMs === hosts.mtimeMs
              ? hosts.table
              : parseHosts(await readFile(hostsFile, 'utf8'));
          hosts = { table, mtimeMs, checkedAt: performance.now() };
        } catch {
          // No hosts file: DNS alone.
          hosts = {
            table: new Map(),
            mtimeMs: -1,
            checkedAt: performance.now(),
          };
        }
      })().finally(() => {
        reading = undefined;
      });
      await reading;
    }
    return hosts.table;
  };

  const resolve: Resolver = async (hostname) => {
    const name = normalName(hostname);
    const fromFile = (await hostsTable()).get(name);
    if (fromFile) {
      return fromFile.map((address) => ({
        address,
        family: isIP(address) === 6 ? 6 : 4,
      }));
    }
    const [v4, v6] = await Promise.allSettled([
      dns.resolve4(name),
      dns.resolve6(name),
    ]);
    const answers = [
      ...(v4.status === 'fulfilled' ? v4.value : []).map((address) => ({
        address,
        family: 4 as const,
      })),
      ...(v6.status === 'fulfilled' ? v6.value : []).map((address) => ({
        address,
        family: 6 as const,
      })),
    ];
    if (answers.length > 0) return answers;
    const failure = [v4, v6]
      .map((result) =>
        result.status === 'rejected' ? codeOf(result.reason) : 'ENODATA',
      )
      .find((code) => !NO_SUCH_NAME.has(code));
    throw Object.assign(new Error(`${hostname}: ${failure ?? 'no address'}`), {
      code: failure ?? 'ENOTFOUND',
    });
  };
  return Object.assign(resolve, { cancel: () => dns.cancel() });
}
