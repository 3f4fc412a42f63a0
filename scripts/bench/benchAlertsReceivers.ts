/**
 * Everything `npm run bench:alerts` points the service at, in a process of
 * its own so that none of it takes the service's event loop: on 127.0.0.1
 * only,
 *
 * - **the sites**: harness/monitor/monitorService.ts's switchable site
 *   (`GET /site?n=…`, 200 until switched, then 503);
 * - **a fast webhook receiver**: `POST /fast/<n>`, answered 200 as soon as
 *   the body is read;
 * - **a slow webhook receiver**: `POST /slow/<n>`, answered 200
 *   `--slow-ms` (default 5,000) after the body was read;
 * - **an SMTP sink** (smtp-server), accepting every mail;
 * - **a control server**: `POST /fail?from=a&to=b` switches sites a … b to
 *   failing; `GET /stats` answers the arrivals so far (distinct ids per
 *   receiver) and this process's CPU; `GET /arrivals` answers every
 *   arrival since the last `POST /reset`, which empties them.
 *
 * Each arrival is stamped with `Date.now()` when the request's body (a
 * mail's DATA) has been read whole: for a webhook its `webhook-id`, the
 * three signature headers, its path and body; for a mail its Message-ID
 * and whether its subject is a site's "Down:". It prints `PORTS <json>`
 * when listening, and exits on SIGTERM.
 *
 * Usage: `node --import tsx scripts/bench/benchAlertsReceivers.ts
 * [--slow-ms 5000]`
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Server as NetServer } from 'node:net';
import { parseArgs } from 'node:util';
import { SMTPServer } from 'smtp-server';
import { startSwitchableSite } from '../../harness/monitor/monitorService';

const { values: options } = parseArgs({
  options: { 'slow-ms': { type: 'string', default: '5000' } },
});
const SLOW_MS = Number(options['slow-ms']);

/** One delivery as a receiver saw it arrive. */
export interface Arrival {
  receiver: 'fast' | 'slow' | 'mail';
  /** `webhook-id`, or the mail's Message-ID (with its angle brackets). */
  id: string;
  /** `Date.now()` when the body had arrived whole. */
  at: number;
  /** A webhook's path (`/fast/12`), its signature headers and body. */
  path?: string;
  timestamp?: string;
  signature?: string;
  body?: string;
  /** A mail whose subject starts with `Down:` (a site's alert). */
  down?: boolean;
}

let arrivals: Arrival[] = [];
/** Distinct ids per receiver since the last reset. */
const seen = { fast: new Set<string>(), slow: new Set<string>() };
const downMails = new Set<string>();
let mails = 0;

function listen(server: NetServer): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () =>
      resolve((server.address() as AddressInfo).port),
    );
  });
}

/** Reads a request's body whole. */
function bodyOf(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.once('error', reject);
  });
}

/** A webhook receiver that answers 200 after `delayMs`. */
function webhookReceiver(receiver: 'fast' | 'slow', delayMs: number): Server {
  return createServer((request, response) => {
    void bodyOf(request).then((body) => {
      const at = Date.now();
      const header = (name: string) => {
        const value = request.headers[name];
        return typeof value === 'string' ? value : '';
      };
      const id = header('webhook-id');
      arrivals.push({
        receiver,
        id,
        at,
        path: request.url ?? '',
        timestamp: header('webhook-timestamp'),
        signature: header('webhook-signature'),
        body,
      });
      seen[receiver].add(id);
      const answer = () => {
        response.writeHead(200, { 'content-type': 'text/plain' });
        response.end('ok\n');
      };
      if (delayMs > 0) setTimeout(answer, delayMs);
      else answer();
    });
  });
}

const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  logger: false,
  // Many mails arrive at once; the service's pool keeps two connections.
  maxClients: 100,
  onData(stream, _session, callback) {
    let head = '';
    let headDone = false;
    stream.on('data', (chunk: Buffer) => {
      if (headDone) return;
      head += chunk.toString('utf8');
      const end = head.indexOf('\r\n\r\n');
      if (end >= 0) {
        head = head.slice(0, end);
        headDone = true;
      }
    });
    stream.on('end', () => {
      const at = Date.now();
      // Unfold the header lines (RFC 5322 §2.2.3) before reading them.
      const unfolded = head.replace(/\r?\n[ \t]+/g, ' ');
      const id = /^Message-ID:\s*(<[^>]+>)/im.exec(unfolded)?.[1] ?? '';
      const down = /^Subject:\s*Down:/im.test(unfolded);
      mails += 1;
      arrivals.push({ receiver: 'mail', id, at, down });
      if (down) downMails.add(id);
      callback();
    });
  },
});

const site = await startSwitchableSite();
const fast = webhookReceiver('fast', 0);
const slow = webhookReceiver('slow', SLOW_MS);

const control = createServer((request, response) => {
  const url = new URL(request.url ?? '/', 'http://127.0.0.1');
  const json = (value: unknown) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(value));
  };
  if (request.method === 'POST' && url.pathname === '/fail') {
    const from = Number(url.searchParams.get('from'));
    const to = Number(url.searchParams.get('to'));
    for (let n = from; n <= to; n += 1) site.set(n, 'fail');
    return json({ failing: to - from + 1 });
  }
  if (request.method === 'POST' && url.pathname === '/reset') {
    arrivals = [];
    seen.fast.clear();
    seen.slow.clear();
    downMails.clear();
    return json({ ok: true });
  }
  if (url.pathname === '/stats') {
    const { user, system } = process.cpuUsage();
    return json({
      fast: seen.fast.size,
      slow: seen.slow.size,
      downMails: downMails.size,
      mails,
      siteRequests: site.site.requests.length,
      cpuMs: (user + system) / 1000,
    });
  }
  if (url.pathname === '/arrivals') return json(arrivals);
  response.writeHead(404).end();
});

const ports = {
  site: site.site.port,
  fast: await listen(fast),
  slow: await listen(slow),
  smtp: await listen(smtp.server),
  control: await listen(control),
};
console.log(`PORTS ${JSON.stringify(ports)}`);
process.once('SIGTERM', () => process.exit(0));
