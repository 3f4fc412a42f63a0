/**
 * One POST under the monitor's SSRF rules (server/monitor/check/safePost.ts,
 * issue 60), against receivers on 127.0.0.1 only: what it sends, what it
 * reads of the answer (status, Retry-After per RFC 9110 §10.2.3, a capped
 * and cleaned body), that it follows no redirect, that it refuses an
 * address the rule refuses before any connection, its time box, and the
 * URLs it never posts to.
 *
 * Every post gets a test resolver (no DNS: `hook.test` and the other names
 * map to fixed addresses) and the loopback tripwire: a connection outside
 * 127.0.0.0/8 and ::1 throws before it is made, and fails the test. The
 * address rule allows 127.0.0.1 only; tests that mean it refused say so.
 */
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import {
  afterAll,
  afterEach,
  beforeAll,
  beforeEach,
  describe,
  expect,
  it,
} from 'vitest';
import {
  postConnections,
  postSafely,
  type PostAnswer,
  type PostConnections,
  type PostRequest,
  type PostSettings,
} from '../../../server/monitor/check/safePost';
import {
  createTestCertificateAuthority,
  type SiteCertificate,
  type TestCertificateAuthority,
} from '../../../harness/monitor/localSites';
import {
  loopbackTripwire,
  testResolver,
  type TestResolver,
  type Tripwire,
} from '../../../harness/monitor/tripwire';

const USER_AGENT = 'Vigil-Webhooks/1 (+http://vigil.test)';
const LOOPBACK = '127.0.0.1';

/** What a receiver saw of one request. */
interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  /** the user agents sent, every one (a duplicate would show here) */
  userAgents: string[];
  body: string;
}

/** A node:http server on 127.0.0.1, and what it saw. */
interface Receiver {
  port: number;
  /** TCP connections accepted so far */
  connections: Socket[];
  requests: SeenRequest[];
  /** resolves with each request once its body is in */
  received: Promise<SeenRequest>;
}

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

const servers: Server[] = [];

/**
 * Starts a receiver on 127.0.0.1, port 0: node:http, or node:https with
 * `tls`'s key and certificate.
 */
async function startReceiver(
  handler: Handler,
  tls?: SiteCertificate,
): Promise<Receiver> {
  const connections: Socket[] = [];
  const requests: SeenRequest[] = [];
  let onReceived: (seen: SeenRequest) => void = () => undefined;
  const received = new Promise<SeenRequest>((resolve) => {
    onReceived = resolve;
  });
  const onRequest = (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const userAgents: string[] = [];
      for (let i = 0; i < request.rawHeaders.length; i += 2) {
        if (request.rawHeaders[i]?.toLowerCase() === 'user-agent') {
          userAgents.push(request.rawHeaders[i + 1] ?? '');
        }
      }
      const seen: SeenRequest = {
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        userAgents,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(seen);
      onReceived(seen);
      handler(request, response);
    });
  };
  const server: Server =
    tls === undefined
      ? createServer(onRequest)
      : createTlsServer(tls, onRequest);
  server.on('connection', (socket: Socket) => connections.push(socket));
  servers.push(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, LOOPBACK, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return { port, connections, requests, received };
}

/** A handler that answers `status` with `headers` and `body`. */
function reply(
  status: number,
  headers: Record<string, string> = {},
  body = '',
): Handler {
  return (_request, response) => {
    response.writeHead(status, { 'content-type': 'text/plain', ...headers });
    response.end(body);
  };
}

let tripwire: Tripwire;
let resolver: TestResolver;

beforeEach(() => {
  tripwire = loopbackTripwire();
  resolver = testResolver({
    'hook.test': [LOOPBACK],
    'other.test': [LOOPBACK],
    'private.test': ['10.0.0.1'],
    'mixed.test': [LOOPBACK, '10.0.0.1'],
  });
});

afterEach(async () => {
  const closing = servers.splice(0).map(
    (server) =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  await Promise.all(closing);
  expect(tripwire.violations).toEqual([]);
});

const JSON_BODY =
  '{"type":"site.down","data":{"site":"https://example.test/"}}';

/** Posts with the tests' settings (127.0.0.1 alone allowed) and any overrides. */
function post(
  url: string,
  overrides: Partial<PostSettings> = {},
  request: PostRequest = {
    headers: { 'content-type': 'application/json' },
    body: '{}',
  },
): Promise<PostAnswer> {
  return postSafely(url, request, {
    resolve: resolver.resolve,
    isAllowed: (address) => address === LOOPBACK,
    beforeConnect: tripwire.beforeConnect,
    userAgent: USER_AGENT,
    ...overrides,
  });
}

describe('a post that is answered', () => {
  it('sends a POST with the body, the headers and its User-Agent, and reports a 2xx', async () => {
    const receiver = await startReceiver(reply(202, {}, 'accepted'));
    const answer = await post(
      `http://hook.test:${receiver.port}/hooks/in?team=7#fragment`,
      {},
      {
        headers: {
          'Content-Type': 'application/json',
          'webhook-id': 'msg_1',
          'webhook-signature': 'v1,abc=',
          'User-Agent': 'spoofed/1',
        },
        body: JSON_BODY,
      },
    );

    expect(answer).toEqual({
      kind: 'answered',
      status: 202,
      body: 'accepted',
      ms: expect.any(Number) as number,
    });
    expect(receiver.requests).toHaveLength(1);
    const [seen] = receiver.requests;
    expect(seen?.method).toBe('POST');
    expect(seen?.url).toBe('/hooks/in?team=7');
    expect(seen?.body).toBe(JSON_BODY);
    expect(seen?.userAgents).toEqual([USER_AGENT]);
    expect(seen?.headers).toMatchObject({
      host: `hook.test:${receiver.port}`,
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(JSON_BODY)),
      'webhook-id': 'msg_1',
      'webhook-signature': 'v1,abc=',
      'accept-encoding': 'identity',
    });
    expect(seen?.headers).not.toHaveProperty('cookie');
    expect(seen?.headers).not.toHaveProperty('authorization');
    // Resolved once, and connected to the judged address only.
    expect(resolver.calls).toEqual(['hook.test']);
    expect(tripwire.attempts).toEqual([
      { address: LOOPBACK, port: receiver.port },
    ]);
  });

  it('sends a body in UTF-8 as it is', async () => {
    const receiver = await startReceiver(reply(200));
    const body = '{"site":"café ☕ 🙂"}';
    await post(`http://hook.test:${receiver.port}/`, {}, { headers: {}, body });
    expect(receiver.requests[0]?.body).toBe(body);
    expect(receiver.requests[0]?.headers['content-length']).toBe(
      String(Buffer.byteLength(body)),
    );
  });

  it('takes an IP literal as it is, without resolving it', async () => {
    const receiver = await startReceiver(reply(204));
    const answer = await post(`http://127.0.0.1:${receiver.port}/`);
    expect(answer).toMatchObject({ kind: 'answered', status: 204, body: '' });
    expect(resolver.calls).toEqual([]);
  });

  it.each([400, 410, 500, 503])(
    'reports a %i as that status',
    async (status) => {
      const receiver = await startReceiver(reply(status, {}, 'gone'));
      const answer = await post(`http://hook.test:${receiver.port}/`);
      expect(answer).toEqual({
        kind: 'answered',
        status,
        body: 'gone',
        ms: expect.any(Number) as number,
      });
    },
  );
});

describe('Retry-After (RFC 9110 §10.2.3)', () => {
  it('reads delay-seconds: 429 with Retry-After: 7 is 7000 ms', async () => {
    const receiver = await startReceiver(reply(429, { 'retry-after': '7' }));
    const answer = await post(`http://hook.test:${receiver.port}/`);
    expect(answer).toMatchObject({
      kind: 'answered',
      status: 429,
      retryAfterMs: 7000,
    });
  });

  it('reads it on any answer, and caps nothing', async () => {
    const receiver = await startReceiver(
      reply(503, { 'retry-after': '86400' }),
    );
    const answer = await post(`http://hook.test:${receiver.port}/`);
    expect(answer).toMatchObject({ status: 503, retryAfterMs: 86_400_000 });
  });

  const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
  const LONG_DAYS = [
    'Sunday',
    'Monday',
    'Tuesday',
    'Wednesday',
    'Thursday',
    'Friday',
    'Saturday',
  ];
  const MONTHS = [
    'Jan',
    'Feb',
    'Mar',
    'Apr',
    'May',
    'Jun',
    'Jul',
    'Aug',
    'Sep',
    'Oct',
    'Nov',
    'Dec',
  ];
  const two = (n: number) => String(n).padStart(2, '0');
  const clock = (date: Date) =>
    `${two(date.getUTCHours())}:${two(date.getUTCMinutes())}:${two(date.getUTCSeconds())}`;
  /** The three forms of HTTP-date (RFC 9110 §5.6.7). */
  const FORMS: [string, (date: Date) => string][] = [
    ['IMF-fixdate', (date) => date.toUTCString()],
    [
      'rfc850-date',
      (date) =>
        `${LONG_DAYS[date.getUTCDay()]}, ${two(date.getUTCDate())}-${MONTHS[date.getUTCMonth()]}-${two(date.getUTCFullYear() % 100)} ${clock(date)} GMT`,
    ],
    [
      'asctime-date',
      (date) =>
        `${DAYS[date.getUTCDay()]} ${MONTHS[date.getUTCMonth()]} ${String(date.getUTCDate()).padStart(2, ' ')} ${clock(date)} ${date.getUTCFullYear()}`,
    ],
  ];

  it.each(FORMS)(
    'reads an HTTP-date (%s) as the time from now until then',
    async (_form, format) => {
      const receiver = await startReceiver((_request, response) => {
        // Two minutes from when the answer is sent (whole seconds).
        const then = new Date(Date.now() + 120_000);
        reply(429, { 'retry-after': format(then) })(_request, response);
      });
      const answer = await post(`http://hook.test:${receiver.port}/`);
      expect(answer.kind).toBe('answered');
      const retryAfterMs =
        answer.kind === 'answered' ? answer.retryAfterMs : undefined;
      // At most 120 s; less by the sub-second the date drops and the time
      // the answer took to be read.
      expect(retryAfterMs).toBeGreaterThan(110_000);
      expect(retryAfterMs).toBeLessThanOrEqual(120_000);
    },
  );

  it('reads a date in the past as 0', async () => {
    const receiver = await startReceiver(
      reply(503, { 'retry-after': 'Sun, 06 Nov 1994 08:49:37 GMT' }),
    );
    const answer = await post(`http://hook.test:${receiver.port}/`);
    expect(answer).toMatchObject({ status: 503, retryAfterMs: 0 });
  });

  it.each([
    'soon',
    '7.5',
    '-1',
    '+7',
    '',
    'sun, 06 nov 2094 08:49:37 gmt',
    'Sun, 31 Feb 2094 08:49:37 GMT',
    'Sun, 06 Nov 2094 25:49:37 GMT',
    '2094-11-06T08:49:37Z',
  ])('ignores an unparsable value (%j)', async (value) => {
    const receiver = await startReceiver(reply(429, { 'retry-after': value }));
    const answer = await post(`http://hook.test:${receiver.port}/`);
    expect(answer.kind).toBe('answered');
    expect(answer).not.toHaveProperty('retryAfterMs');
  });
});

describe('what it reads of the answer', () => {
  it('reads at most 4096 bytes of a 1 MB answer, then drops the connection', async () => {
    const receiver = await startReceiver(
      reply(200, {}, 'a'.repeat(1024 * 1024)),
    );
    const closed = receiver.received.then(() => {
      const [socket] = receiver.connections;
      return new Promise<void>((resolve) => {
        if (!socket || socket.destroyed) resolve();
        else socket.once('close', () => resolve());
      });
    });
    const answer = await post(`http://hook.test:${receiver.port}/`);
    expect(answer.kind).toBe('answered');
    const body = answer.kind === 'answered' ? answer.body : '';
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(4096);
    expect(body).toBe('a'.repeat(4096));
    await closed;
  });

  it('reads at most maxAnswerBytes, a character cut at the cap dropped', async () => {
    const receiver = await startReceiver(reply(200, {}, 'ééé'));
    const answer = await post(`http://hook.test:${receiver.port}/`, {
      maxAnswerBytes: 5,
    });
    expect(answer).toMatchObject({ kind: 'answered', body: 'éé' });
  });

  it('cleans control characters out of the body', async () => {
    const receiver = await startReceiver(
      reply(
        200,
        {},
        'ok\u0000\u001b[2J\u202eevil\u202c\r\nX-Injected: 1\u0085\u200f',
      ),
    );
    const answer = await post(`http://hook.test:${receiver.port}/`);
    expect(answer).toMatchObject({
      kind: 'answered',
      body: 'ok[2JevilX-Injected: 1',
    });
  });
});

describe('no redirect is followed', () => {
  it.each([301, 302, 303, 307, 308])(
    'a %i is a redirect, and its Location is never contacted',
    async (status) => {
      const elsewhere = await startReceiver(reply(200));
      const receiver = await startReceiver(
        reply(status, {
          location: `http://other.test:${elsewhere.port}/hooks`,
        }),
      );
      const answer = await post(`http://hook.test:${receiver.port}/`);
      expect(answer).toEqual({
        kind: 'failed',
        reason: 'redirect',
        detail: String(status),
        ms: expect.any(Number) as number,
      });
      expect(elsewhere.connections).toHaveLength(0);
      expect(resolver.calls).toEqual(['hook.test']);
      expect(tripwire.attempts).toHaveLength(1);
    },
  );

  it('a 3xx without a Location is a redirect too', async () => {
    const receiver = await startReceiver(reply(300));
    const answer = await post(`http://hook.test:${receiver.port}/`);
    expect(answer).toMatchObject({
      kind: 'failed',
      reason: 'redirect',
      detail: '300',
    });
  });
});

describe('an address that is not public (OWASP SSRF Prevention Cheat Sheet)', () => {
  it('refuses a name that resolves to 10.0.0.1, connecting to nothing', async () => {
    const answer = await post('http://private.test/hooks');
    expect(answer).toEqual({
      kind: 'failed',
      reason: 'not_public',
      detail: '10.0.0.1',
      ms: expect.any(Number) as number,
    });
    expect(tripwire.attempts).toEqual([]);
  });

  it('refuses 127.0.0.1 when the rule refuses it: the receiver sees nothing', async () => {
    const receiver = await startReceiver(reply(200));
    const answer = await post(`http://hook.test:${receiver.port}/`, {
      isAllowed: () => false,
    });
    expect(answer).toMatchObject({
      kind: 'failed',
      reason: 'not_public',
      detail: LOOPBACK,
    });
    expect(receiver.connections).toHaveLength(0);
    expect(tripwire.attempts).toEqual([]);
  });

  it('refuses a name with one refused address among allowed ones', async () => {
    const receiver = await startReceiver(reply(200));
    const answer = await post(`http://mixed.test:${receiver.port}/`);
    expect(answer).toMatchObject({
      kind: 'failed',
      reason: 'not_public',
      detail: '10.0.0.1',
    });
    expect(receiver.connections).toHaveLength(0);
    expect(tripwire.attempts).toEqual([]);
  });

  it.each([
    ['http://10.0.0.1/', '10.0.0.1'],
    ['http://169.254.169.254/latest/meta-data/', '169.254.169.254'],
    ['http://[::1]:9/', '::1'],
    ['http://2130706433/', LOOPBACK],
  ])('refuses the IP literal %s unresolved', async (url, address) => {
    const answer = await post(url, {
      isAllowed: (candidate) => candidate === '192.0.2.1',
    });
    expect(answer).toMatchObject({
      kind: 'failed',
      reason: 'not_public',
      detail: address,
    });
    expect(resolver.calls).toEqual([]);
    expect(tripwire.attempts).toEqual([]);
  });

  it('refuses a single-label host, as a site check does', async () => {
    const answer = await post('http://intranet/hooks');
    expect(answer).toMatchObject({
      kind: 'failed',
      reason: 'not_public',
      detail: 'single-label',
    });
    expect(resolver.calls).toEqual([]);
  });

  it('refuses a connection its beforeConnect refuses', async () => {
    const receiver = await startReceiver(reply(200));
    const answer = await post(`http://hook.test:${receiver.port}/`, {
      beforeConnect: () => {
        throw new Error('refused');
      },
    });
    expect(answer).toMatchObject({
      kind: 'failed',
      reason: 'not_public',
      detail: LOOPBACK,
    });
    expect(receiver.connections).toHaveLength(0);
  });
});

describe('a post over HTTPS', () => {
  const DAY_MS = 86_400_000;
  let authority: TestCertificateAuthority;
  let certificate: SiteCertificate;

  beforeAll(() => {
    authority = createTestCertificateAuthority('Vigil Test CA');
    certificate = authority.issue({
      names: ['hook.test'],
      notBefore: new Date(Date.now() - DAY_MS),
      notAfter: new Date(Date.now() + 30 * DAY_MS),
    });
  });

  afterAll(() => authority.dispose());

  it('posts over TLS to a certificate it trusts (settings.ca)', async () => {
    const receiver = await startReceiver(reply(200, {}, 'ok'), certificate);
    const answer = await post(`https://hook.test:${receiver.port}/hooks`, {
      ca: authority.cert,
    });
    expect(answer).toMatchObject({ kind: 'answered', status: 200, body: 'ok' });
    expect(receiver.requests[0]?.body).toBe('{}');
  });

  it('sends nothing to a certificate it does not trust', async () => {
    const receiver = await startReceiver(reply(200), certificate);
    const answer = await post(`https://hook.test:${receiver.port}/hooks`);
    expect(answer).toMatchObject({
      kind: 'failed',
      reason: 'certificate',
      detail: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
    });
    expect(receiver.requests).toHaveLength(0);
  });

  it('sends nothing to a certificate for another name', async () => {
    const receiver = await startReceiver(reply(200), certificate);
    const answer = await post(`https://other.test:${receiver.port}/hooks`, {
      ca: authority.cert,
    });
    expect(answer).toMatchObject({
      kind: 'failed',
      reason: 'certificate',
      detail: 'ERR_TLS_CERT_ALTNAME_INVALID',
    });
    expect(receiver.requests).toHaveLength(0);
  });
});

describe('failures on the way', () => {
  it('times out at the configured total limit (300 ms) when the receiver never answers', async () => {
    const receiver = await startReceiver(() => undefined);
    const answer = await post(`http://hook.test:${receiver.port}/`, {
      timeouts: { totalMs: 300 },
    });
    expect(answer).toEqual({
      kind: 'failed',
      reason: 'timeout',
      detail: 'total',
      ms: expect.any(Number) as number,
    });
    // The request arrived: it is the answer that never came.
    expect(receiver.requests).toHaveLength(1);
  });

  it('reports a name the resolver does not know as no_such_name', async () => {
    const answer = await post('http://unknown.test/');
    expect(answer).toMatchObject({
      kind: 'failed',
      reason: 'no_such_name',
      detail: 'ENOTFOUND',
    });
    expect(tripwire.attempts).toEqual([]);
  });

  it('reports a refused connection as unreachable', async () => {
    const receiver = await startReceiver(reply(200));
    const { port } = receiver;
    await new Promise<void>((resolve) => {
      const server = servers.pop();
      server?.close(() => resolve());
    });
    const answer = await post(`http://hook.test:${port}/`);
    expect(answer).toMatchObject({
      kind: 'failed',
      reason: 'unreachable',
      detail: 'ECONNREFUSED',
    });
  });
});

describe('connections kept alive between posts (postConnections, ADR-0132)', () => {
  const DAY_MS = 86_400_000;
  let kept: PostConnections;

  beforeEach(() => {
    kept = postConnections();
  });

  afterEach(() => kept.close());

  /**
   * The next turn of the event loop: undici frees a connection for its next
   * request there (in a `setImmediate`) once an answer is read. A post made
   * sooner finds it busy and opens another.
   */
  const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

  /** Resolves once the socket has closed. */
  const closedSocket = (socket: Socket | undefined) =>
    new Promise<void>((resolve) => {
      if (!socket || socket.destroyed) resolve();
      else socket.once('close', () => resolve());
    });

  it('posts again over the connection the first post opened: one connection, each post its own answer', async () => {
    let count = 0;
    const receiver = await startReceiver((_request, response) => {
      count += 1;
      response.end(`answer ${count}`);
    });
    const url = `http://hook.test:${receiver.port}/hooks`;
    const first = await post(url, { connections: kept });
    await nextTurn();
    const second = await post(
      url,
      { connections: kept },
      {
        headers: { 'content-type': 'application/json' },
        body: JSON_BODY,
      },
    );
    expect(first).toMatchObject({ kind: 'answered', body: 'answer 1' });
    expect(second).toMatchObject({ kind: 'answered', body: 'answer 2' });
    expect(receiver.connections).toHaveLength(1);
    expect(tripwire.attempts).toHaveLength(1);
    expect(receiver.requests.map((seen) => seen.body)).toEqual([
      '{}',
      JSON_BODY,
    ]);
  });

  it('resolves and judges the name at every post: once it resolves to a refused address, nothing is sent over the kept connection', async () => {
    const receiver = await startReceiver(reply(200));
    resolver = testResolver({
      'hook.test': (call) => (call === 1 ? [LOOPBACK] : ['10.0.0.1']),
    });
    const url = `http://hook.test:${receiver.port}/`;
    expect(await post(url, { connections: kept })).toMatchObject({
      kind: 'answered',
    });
    const again = await post(url, { connections: kept });
    expect(again).toMatchObject({
      kind: 'failed',
      reason: 'not_public',
      detail: '10.0.0.1',
    });
    expect(resolver.calls).toEqual(['hook.test', 'hook.test']);
    expect(receiver.requests).toHaveLength(1);
  });

  it('keeps a connection for one origin only: another port is another connection', async () => {
    const one = await startReceiver(reply(200));
    const two = await startReceiver(reply(200));
    await post(`http://hook.test:${one.port}/`, { connections: kept });
    await post(`http://hook.test:${two.port}/`, { connections: kept });
    await nextTurn();
    await post(`http://hook.test:${one.port}/`, { connections: kept });
    expect(one.connections).toHaveLength(1);
    expect(one.requests).toHaveLength(2);
    expect(two.connections).toHaveLength(1);
    expect(two.requests).toHaveLength(1);
  });

  it('closes a connection whose answer was cut at 4096 bytes; the next post opens its own', async () => {
    const receiver = await startReceiver(
      reply(200, {}, 'a'.repeat(1024 * 1024)),
    );
    const url = `http://hook.test:${receiver.port}/`;
    const first = await post(url, { connections: kept });
    expect(first).toMatchObject({ kind: 'answered', body: 'a'.repeat(4096) });
    await closedSocket(receiver.connections[0]);
    const second = await post(url, { connections: kept });
    expect(second).toMatchObject({ kind: 'answered', body: 'a'.repeat(4096) });
    expect(receiver.connections).toHaveLength(2);
  });

  it('reports a refused connection and a connection beforeConnect refuses as a post alone does', async () => {
    const receiver = await startReceiver(reply(200));
    const { port } = receiver;
    expect(
      await post(`http://hook.test:${port}/`, {
        connections: kept,
        beforeConnect: () => {
          throw new Error('refused');
        },
      }),
    ).toMatchObject({ kind: 'failed', reason: 'not_public', detail: LOOPBACK });
    await new Promise<void>((resolve) => {
      servers.pop()?.close(() => resolve());
    });
    const other = postConnections();
    try {
      expect(
        await post(`http://hook.test:${port}/`, { connections: other }),
      ).toMatchObject({
        kind: 'failed',
        reason: 'unreachable',
        detail: 'ECONNREFUSED',
      });
    } finally {
      await other.close();
    }
    expect(receiver.requests).toHaveLength(0);
  });

  it('times out at the total limit over a kept connection, and does not reuse it', async () => {
    let count = 0;
    const receiver = await startReceiver((_request, response) => {
      count += 1;
      // The second request is never answered.
      if (count !== 2) response.end('ok');
    });
    const url = `http://hook.test:${receiver.port}/`;
    await post(url, { connections: kept });
    await nextTurn();
    const stalled = await post(url, {
      connections: kept,
      timeouts: { totalMs: 300 },
    });
    expect(stalled).toMatchObject({
      kind: 'failed',
      reason: 'timeout',
      detail: 'total',
    });
    await closedSocket(receiver.connections[0]);
    expect(await post(url, { connections: kept })).toMatchObject({
      kind: 'answered',
      body: 'ok',
    });
    expect(receiver.connections).toHaveLength(2);
  });

  it('sends nothing to a certificate for another name, though a connection to its address is kept', async () => {
    const authority = createTestCertificateAuthority('Vigil Test CA');
    try {
      const certificate = authority.issue({
        names: ['hook.test'],
        notBefore: new Date(Date.now() - DAY_MS),
        notAfter: new Date(Date.now() + 30 * DAY_MS),
      });
      const receiver = await startReceiver(reply(200, {}, 'ok'), certificate);
      const settings = { connections: kept, ca: authority.cert };
      expect(
        await post(`https://hook.test:${receiver.port}/`, settings),
      ).toMatchObject({ kind: 'answered', body: 'ok' });
      expect(
        await post(`https://other.test:${receiver.port}/`, settings),
      ).toMatchObject({
        kind: 'failed',
        reason: 'certificate',
        detail: 'ERR_TLS_CERT_ALTNAME_INVALID',
      });
      expect(receiver.requests).toHaveLength(1);
    } finally {
      authority.dispose();
    }
  });

  it('keeps connections for maxReceivers receivers: the one unused longest closes its own', async () => {
    const few = postConnections({ maxReceivers: 1 });
    try {
      const one = await startReceiver(reply(200));
      const two = await startReceiver(reply(200));
      await post(`http://hook.test:${one.port}/`, { connections: few });
      await post(`http://hook.test:${two.port}/`, { connections: few });
      await closedSocket(one.connections[0]);
      await nextTurn();
      await post(`http://hook.test:${two.port}/`, { connections: few });
      expect(two.connections).toHaveLength(1);
      expect(two.requests).toHaveLength(2);
    } finally {
      await few.close();
    }
  });

  it('once closed, closes what it kept; a later post opens its own connection and closes it', async () => {
    const receiver = await startReceiver(reply(200));
    const url = `http://hook.test:${receiver.port}/`;
    await post(url, { connections: kept });
    await kept.close();
    await closedSocket(receiver.connections[0]);
    expect(await post(url, { connections: kept })).toMatchObject({
      kind: 'answered',
    });
    await closedSocket(receiver.connections[1]);
    expect(receiver.connections).toHaveLength(2);
  });
});

describe('URLs it never posts to', () => {
  it.each([
    ['ftp://hook.test/hooks', 'ftp:'],
    ['file:///etc/passwd', 'file:'],
    ['javascript:alert(1)', 'javascript:'],
    ['http://user:pw@hook.test/', 'credentials'],
    ['https://user@hook.test/', 'credentials'],
    ['not a url', 'url'],
    ['', 'url'],
  ])('%j is invalid_url (%s)', async (url, detail) => {
    const answer = await post(url);
    expect(answer).toEqual({
      kind: 'failed',
      reason: 'invalid_url',
      detail,
      ms: expect.any(Number) as number,
    });
    expect(resolver.calls).toEqual([]);
    expect(tripwire.attempts).toEqual([]);
  });
});

describe('an aborted signal', () => {
  it('posts nothing when the signal is already aborted', async () => {
    const receiver = await startReceiver(reply(200));
    const answer = await post(`http://hook.test:${receiver.port}/`, {
      signal: AbortSignal.abort(),
    });
    expect(answer).toEqual({
      kind: 'failed',
      reason: 'unreachable',
      detail: 'ABORT_ERR',
      ms: expect.any(Number) as number,
    });
    expect(receiver.connections).toHaveLength(0);
    expect(tripwire.attempts).toEqual([]);
  });

  it('stops waiting for the answer when the signal aborts', async () => {
    const receiver = await startReceiver(() => undefined);
    const controller = new AbortController();
    void receiver.received.then(() => controller.abort());
    const answer = await post(`http://hook.test:${receiver.port}/`, {
      signal: controller.signal,
    });
    expect(answer).toMatchObject({
      kind: 'failed',
      reason: 'unreachable',
      detail: 'ABORT_ERR',
    });
    expect(receiver.requests).toHaveLength(1);
  });
});
