/**
 * The websites `npm run bench:monitor` checks: a bare `http` server on
 * 127.0.0.1 only, answering `GET /site?n=…` with 200 and a 3-byte body
 * (keep-alive, as most sites answer; the check closes its connection), and
 * counting what it answered. In a process of its own, so that it never
 * takes the service's event loop; it still takes some of the machine's
 * two cores, which real sites would not (the bench reports its CPU). It
 * prints `PORT <n>` when listening; `GET /stats` answers `{ "requests":
 * <count>, "cpuMs": <its CPU so far> }`. `GET /tarpit?n=…` accepts and
 * never answers (a hostile site, issue 58: the check's own time box ends
 * it). It exits on SIGTERM.
 *
 * Usage: `node --import tsx scripts/bench/benchMonitorSites.ts`
 */
import { createServer } from 'node:http';

const BODY = 'ok\n';
let requests = 0;

const server = createServer((request, response) => {
  const path = request.url ?? '/';
  if (path === '/stats') {
    const { user, system } = process.cpuUsage();
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ requests, cpuMs: (user + system) / 1000 }));
    return;
  }
  if (path.startsWith('/tarpit?')) {
    requests += 1;
    return;
  }
  if (!path.startsWith('/site?')) {
    response.writeHead(404);
    response.end();
    return;
  }
  requests += 1;
  response.writeHead(200, {
    'content-type': 'text/plain',
    'content-length': BODY.length,
  });
  response.end(BODY);
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  console.log(`PORT ${port}`);
});
process.once('SIGTERM', () => process.exit(0));
