/**
 * A DNS server on 127.0.0.1 for the monitor's tests and benches (issue
 * 58): it answers A and AAAA queries from a fixed table over UDP, says a
 * name it does not know does not exist (NXDOMAIN), and never answers the
 * names it is told to keep silent, as a slow or dead authoritative server
 * would. Nothing it serves leaves loopback, and it resolves nothing itself.
 */
import { createSocket, type RemoteInfo } from 'node:dgram';
import dnsPacket from 'dns-packet';

export interface DnsRecords {
  /** name → IPv4 addresses */
  a?: Record<string, readonly string[]>;
  /** name → IPv6 addresses */
  aaaa?: Record<string, readonly string[]>;
  /** names that get no answer at all, ever */
  silent?: Iterable<string>;
}

export interface LoopbackDnsServer {
  /** `127.0.0.1:<port>`: a `MONITOR_DNS_SERVERS` entry */
  server: string;
  /** The names of the queries received, in order (lower case). */
  readonly queries: readonly string[];
  close(): Promise<void>;
}

/** DNS's response code for a name that does not exist (RFC 1035 §4.1.1). */
const NXDOMAIN = 3;

/**
 * Starts the server on a free UDP port of 127.0.0.1.
 *
 * @param records what it answers (see {@link DnsRecords}); names match
 *   without case
 * @returns the running server; `close()` stops it
 */
export async function startDnsServer(
  records: DnsRecords,
): Promise<LoopbackDnsServer> {
  const lower = (table: Record<string, readonly string[]> = {}) =>
    new Map(
      Object.entries(table).map(([name, addresses]) => [
        name.toLowerCase(),
        addresses,
      ]),
    );
  const a = lower(records.a);
  const aaaa = lower(records.aaaa);
  const silent = new Set(
    [...(records.silent ?? [])].map((name) => name.toLowerCase()),
  );
  const queries: string[] = [];
  const socket = createSocket('udp4');

  const answer = (message: Buffer, peer: RemoteInfo) => {
    let query: dnsPacket.DecodedPacket;
    try {
      query = dnsPacket.decode(message);
    } catch {
      return;
    }
    const [question] = query.questions ?? [];
    if (!question) return;
    const name = question.name.toLowerCase();
    queries.push(name);
    if (silent.has(name)) return;
    const known = a.has(name) || aaaa.has(name);
    const addresses =
      question.type === 'A'
        ? a.get(name)
        : question.type === 'AAAA'
          ? aaaa.get(name)
          : undefined;
    const response = dnsPacket.encode({
      type: 'response',
      id: query.id ?? 0,
      flags:
        dnsPacket.AUTHORITATIVE_ANSWER |
        dnsPacket.RECURSION_DESIRED |
        dnsPacket.RECURSION_AVAILABLE |
        (known ? 0 : NXDOMAIN),
      questions: [question],
      answers: (addresses ?? []).map((data) => ({
        type: question.type === 'AAAA' ? ('AAAA' as const) : ('A' as const),
        name: question.name,
        ttl: 60,
        class: 'IN' as const,
        data,
      })),
    });
    socket.send(response, peer.port, peer.address);
  };
  socket.on('message', answer);
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(0, '127.0.0.1', () => {
      socket.off('error', reject);
      resolve();
    });
  });
  return {
    server: `127.0.0.1:${socket.address().port}`,
    queries,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
