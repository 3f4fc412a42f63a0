/**
 * One check of one site (server/monitor/check/siteCheck.ts), against sites on
 * 127.0.0.1 only (harness/monitor/localSites.ts): what it sends, how it follows
 * redirects (RFC 9110 §15.4), its time boxes and body cap, how it refuses
 * addresses that are not public before connecting (OWASP SSRF Prevention
 * Cheat Sheet), DNS rebinding included, how it judges certificates made at
 * test time, and the words it gives each result.
 *
 * Every check gets a test resolver (no DNS) and the loopback tripwire: a
 * connection outside 127.0.0.0/8 and ::1 throws before it is made, and
 * fails the test. Time limits are settings, small here; no test asserts a
 * duration, only outcomes and the phase that timed out.
 */
import { X509Certificate } from 'node:crypto';
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
  addressRule,
  parseAllowedNetworks,
} from '../../../server/monitor/check/addressRule';
import {
  causeOf,
  checkSite,
  type CheckResult,
  type CheckSettings,
} from '../../../server/monitor/check/siteCheck';
import { describeCause, describeResult } from '../../../server/monitor/words';
import type { DownCause } from '../../../machines/monitorMachine';
import {
  answer,
  closedPort,
  createTestCertificateAuthority,
  dripBody,
  neverAnswer,
  redirectTo,
  startLocalSite,
  startSilentServer,
  streamBytes,
  type LocalSite,
  type Route,
  type SilentServer,
  type TestCertificateAuthority,
} from '../../../harness/monitor/localSites';
import {
  loopbackTripwire,
  silentResolver,
  testResolver,
  type TestAnswer,
  type TestResolver,
  type Tripwire,
} from '../../../harness/monitor/tripwire';

const USER_AGENT = 'Vigil-Monitor/1 (+http://vigil.test)';
const DAY_MS = 86_400_000;

/** What the tests' resolver answers unless a test gives its own table. */
const NAMES: Record<string, TestAnswer> = {
  'site.test': ['127.0.0.1'],
  'www.site.test': ['127.0.0.1'],
  'other.test': ['127.0.0.1'],
  'private.test': ['10.0.0.1'],
  'metadata.test': ['169.254.169.254'],
  'mixed.test': ['127.0.0.1', '10.0.0.1'],
  'empty.test': [],
};

let tripwire: Tripwire;
let resolver: TestResolver;

beforeEach(() => {
  tripwire = loopbackTripwire();
  resolver = testResolver(NAMES);
});

afterEach(() => {
  expect(tripwire.violations).toEqual([]);
});

/**
 * Checks `url` with the tests' settings: the test resolver, 127.0.0.0/8
 * and ::1 allowed, the tripwire, and any overrides.
 */
function check(
  url: string,
  overrides: Partial<CheckSettings> = {},
): Promise<CheckResult> {
  return checkSite(url, {
    userAgent: USER_AGENT,
    resolve: resolver.resolve,
    isAllowed: addressRule(parseAllowedNetworks('127.0.0.0/8, ::1/128')),
    beforeConnect: tripwire.beforeConnect,
    ...overrides,
  });
}

/** Routes /chain/0 (200) to /chain/9, each redirecting to the one below. */
function chainRoutes(): Record<string, Route> {
  const routes: Record<string, Route> = { '/chain/0': answer(200) };
  for (let n = 1; n <= 9; n += 1) {
    routes[`/chain/${n}`] = redirectTo(`/chain/${n - 1}`);
  }
  return routes;
}

describe('a check over HTTP', () => {
  let site: LocalSite;

  beforeAll(async () => {
    site = await startLocalSite({
      '/': answer(200),
      '/500': answer(500),
      '/401': answer(401, { 'www-authenticate': 'Basic realm="site"' }),
      '/403': answer(403),
      '/429': answer(429),
      '/404-page': answer(404),
      '/silent': neverAnswer(),
      '/set-cookie': (_request, response) => {
        response
          .writeHead(302, {
            'set-cookie': 'session=secret; Path=/',
            location: '/',
          })
          .end();
      },
      '/no-location': (_request, response) => {
        response.writeHead(302).end();
      },
      '/loop': redirectTo('/loop'),
      ...chainRoutes(),
      '/dir/start': redirectTo('next'),
      '/dir/next': answer(200),
      '/to-private': redirectTo('http://private.test/'),
      '/to-metadata': redirectTo('http://169.254.169.254/latest/meta-data/'),
      '/to-ftp': redirectTo('ftp://site.test/'),
      '/to-intranet': redirectTo('http://intranet/admin'),
      '/to-localhost-dot': redirectTo('http://localhost./'),
      '/to-bad-location': redirectTo('http://[bad/'),
      ...Object.fromEntries(
        [301, 302, 303, 307, 308].map((status) => [
          `/redirect/${status}`,
          redirectTo('/', status),
        ]),
      ),
    });
  });

  afterAll(() => site.close());

  it('is up for a 200, with its status, address and timings', async () => {
    const checkedAt = new Date('2026-03-03T10:00:00.000Z');
    const result = await check(site.url('/'), { now: () => checkedAt });

    expect(result).toMatchObject({
      outcome: 'up',
      status: 200,
      address: '127.0.0.1',
      redirects: 0,
      checkedAt: '2026-03-03T10:00:00.000Z',
    });
    expect(result.reason).toBeUndefined();
    expect(result.certificate).toBeUndefined();
    const { dnsMs, connectMs, tlsMs, firstByteMs, totalMs } = result.timings;
    for (const ms of [dnsMs, connectMs, firstByteMs, totalMs]) {
      expect(Number.isInteger(ms)).toBe(true);
      expect(ms).toBeGreaterThanOrEqual(0);
    }
    expect(tlsMs).toBeUndefined();
    expect(totalMs).toBeGreaterThanOrEqual(firstByteMs ?? Infinity);
    expect(describeResult(result, USER_AGENT)).toBe(`Up: 200 in ${totalMs} ms`);
  });

  it('resolves the name once, and connects only to its address', async () => {
    await check(site.url('/'));
    expect(resolver.calls).toEqual(['site.test']);
    expect(tripwire.attempts).toEqual([
      { address: '127.0.0.1', port: site.port },
    ]);
  });

  it('sends a GET with its User-Agent, Accept-Encoding: identity, and nothing that identifies anyone', async () => {
    const before = site.requests.length;
    await check(site.url('/'));

    const [request] = site.requests.slice(before);
    expect(request?.method).toBe('GET');
    expect(request?.target).toBe('/');
    expect(request?.headers['user-agent']).toBe(USER_AGENT);
    expect(request?.headers['accept-encoding']).toBe('identity');
    expect(request?.headers.host).toBe(`site.test:${site.port}`);
    expect(request?.headers.cookie).toBeUndefined();
    expect(request?.headers.authorization).toBeUndefined();
    // Nothing beyond what HTTP/1.1 itself needs.
    expect(
      Object.keys(request?.headers ?? {}).filter(
        (name) => !['host', 'connection'].includes(name),
      ),
    ).toEqual(['user-agent', 'accept-encoding']);
  });

  it('drops credentials in the URL: they are never sent', async () => {
    const before = site.requests.length;
    const url = site.url('/').replace('//', '//user:secret@');
    const result = await check(url);

    expect(result.outcome).toBe('up');
    const [request] = site.requests.slice(before);
    expect(request?.headers.authorization).toBeUndefined();
    expect(JSON.stringify(request)).not.toContain('secret');
  });

  it('does not send back a cookie the site set on a redirect', async () => {
    const before = site.requests.length;
    const result = await check(site.url('/set-cookie'));

    expect(result).toMatchObject({ outcome: 'up', redirects: 1 });
    const requests = site.requests.slice(before);
    expect(requests.map(({ target }) => target)).toEqual(['/set-cookie', '/']);
    expect(requests[1]?.headers.cookie).toBeUndefined();
  });

  it('is down for a 500, with the status in words', async () => {
    const result = await check(site.url('/500'));
    expect(result).toMatchObject({
      outcome: 'down',
      reason: 'status',
      status: 500,
    });
    expect(describeResult(result, USER_AGENT)).toBe(
      'HTTP 500 Internal Server Error',
    );
  });

  it('is down for a 404, without the robots advice', async () => {
    const result = await check(site.url('/404-page'));
    expect(result).toMatchObject({ reason: 'status', status: 404 });
    expect(describeResult(result, USER_AGENT)).toBe('HTTP 404 Not Found');
  });

  it.each([
    [401, 'Unauthorized'],
    [403, 'Forbidden'],
    [429, 'Too Many Requests'],
  ])(
    'is down for a %i, and the words say the site may be blocking robots and to allow the user agent',
    async (status, phrase) => {
      const result = await check(site.url(`/${status}`));
      expect(result).toMatchObject({
        outcome: 'down',
        reason: 'status',
        status,
      });
      const words = describeResult(result, USER_AGENT);
      expect(words).toMatch(new RegExp(`^HTTP ${status} ${phrase}\\. `));
      expect(words).toMatch(/blocking robots/);
      expect(words).toContain(`"${USER_AGENT}"`);
    },
  );

  it('connects to an allowed IP literal without resolving it', async () => {
    const result = await check(`http://127.0.0.1:${site.port}/`);
    expect(result).toMatchObject({ outcome: 'up', address: '127.0.0.1' });
    expect(resolver.calls).toEqual([]);
    expect(result.timings.dnsMs).toBeUndefined();
  });

  it('is unreachable when the connection is refused', async () => {
    const port = await closedPort();
    const result = await check(`http://site.test:${port}/`);
    expect(result).toMatchObject({
      outcome: 'down',
      reason: 'unreachable',
      detail: 'ECONNREFUSED',
      address: '127.0.0.1',
    });
    expect(describeResult(result, USER_AGENT)).toBe(
      'Refused or unreachable (ECONNREFUSED)',
    );
  });

  it('tries the next checked address when a TCP connection fails', async () => {
    resolver = testResolver({ 'dual.test': ['::1', '127.0.0.1'] });
    const result = await check(site.url('/', 'dual.test'));
    expect(result).toMatchObject({ outcome: 'up', address: '127.0.0.1' });
    expect(tripwire.attempts.map(({ address }) => address)).toEqual([
      '::1',
      '127.0.0.1',
    ]);
    expect(resolver.calls).toEqual(['dual.test']);
  });

  describe('time boxes', () => {
    it('times out waiting for headers, in the headers phase', async () => {
      const result = await check(site.url('/silent'), {
        timeouts: { headersMs: 300, totalMs: 5_000 },
      });
      expect(result).toMatchObject({
        outcome: 'down',
        reason: 'timeout',
        detail: 'headers',
        timeoutMs: 300,
      });
      expect(describeResult(result, USER_AGENT)).toBe(
        'Timed out: no answer within 0.3 s',
      );
    });

    it('never waits for headers beyond what remains of the total', async () => {
      const result = await check(site.url('/silent'), {
        timeouts: { headersMs: 60_000, totalMs: 300 },
      });
      expect(result).toMatchObject({
        reason: 'timeout',
        detail: 'total',
        timeoutMs: 300,
      });
    });

    it('times out as a whole while the name is being resolved', async () => {
      const result = await check(site.url('/'), {
        resolve: silentResolver,
        timeouts: { totalMs: 200 },
      });
      expect(result).toMatchObject({
        reason: 'timeout',
        detail: 'total',
        timeoutMs: 200,
      });
      expect(tripwire.attempts).toEqual([]);
      expect(describeResult(result, USER_AGENT)).toBe(
        'Timed out: the check took longer than 0.2 s',
      );
    });
  });

  describe('redirects', () => {
    it.each([301, 302, 303, 307, 308])(
      'follows a %i with a Location',
      async (status) => {
        const result = await check(site.url(`/redirect/${status}`));
        expect(result).toMatchObject({
          outcome: 'up',
          status: 200,
          redirects: 1,
        });
      },
    );

    it('resolves a relative Location against the current URL', async () => {
      const before = site.requests.length;
      const result = await check(site.url('/dir/start'));
      expect(result).toMatchObject({ outcome: 'up', redirects: 1 });
      expect(site.requests.slice(before).map(({ target }) => target)).toEqual([
        '/dir/start',
        '/dir/next',
      ]);
    });

    it('resolves and checks each hop anew', async () => {
      const result = await check(site.url('/chain/2'));
      expect(result).toMatchObject({ outcome: 'up', redirects: 2 });
      expect(resolver.calls).toEqual(['site.test', 'site.test', 'site.test']);
      expect(tripwire.attempts).toHaveLength(3);
    });

    it('follows 5 redirects', async () => {
      const result = await check(site.url('/chain/5'));
      expect(result).toMatchObject({
        outcome: 'up',
        status: 200,
        redirects: 5,
      });
    });

    it('stops at a 6th redirect: too many', async () => {
      const before = site.requests.length;
      const result = await check(site.url('/chain/6'));
      expect(result).toMatchObject({
        outcome: 'down',
        reason: 'redirects',
        redirects: 5,
      });
      expect(site.requests.slice(before).map(({ target }) => target)).toEqual(
        [6, 5, 4, 3, 2, 1].map((n) => `/chain/${n}`),
      );
      expect(describeResult(result, USER_AGENT)).toBe(
        'Too many redirects (more than 5)',
      );
    });

    it('stops a redirect loop', async () => {
      const before = site.requests.length;
      const result = await check(site.url('/loop'));
      expect(result).toMatchObject({ reason: 'redirects', redirects: 5 });
      expect(site.requests.length - before).toBe(6);
    });

    it('follows no more than maxRedirects', async () => {
      const result = await check(site.url('/chain/1'), { maxRedirects: 0 });
      expect(result).toMatchObject({ reason: 'redirects', redirects: 0 });
    });

    it('takes a 3xx without a Location as the final response', async () => {
      const result = await check(site.url('/no-location'));
      expect(result).toMatchObject({
        outcome: 'down',
        reason: 'status',
        status: 302,
      });
    });

    it('takes a 3xx whose Location is no URL as the final response', async () => {
      const result = await check(site.url('/to-bad-location'));
      expect(result).toMatchObject({ reason: 'status', status: 302 });
    });

    it('refuses a redirect to a scheme other than http: and https:', async () => {
      const result = await check(site.url('/to-ftp'));
      expect(result).toMatchObject({
        outcome: 'down',
        reason: 'not_public',
        detail: 'ftp:',
      });
      expect(resolver.calls).toEqual(['site.test']);
    });

    it('refuses a redirect to a name with a private address, before connecting', async () => {
      const result = await check(site.url('/to-private'));
      expect(result).toMatchObject({
        outcome: 'down',
        reason: 'not_public',
        detail: '10.0.0.1',
        address: '10.0.0.1',
        redirects: 1,
      });
      expect(resolver.calls).toEqual(['site.test', 'private.test']);
      expect(tripwire.attempts.map(({ address }) => address)).toEqual([
        '127.0.0.1',
      ]);
      expect(describeResult(result, USER_AGENT)).toBe(
        'Not a public address: we can only check sites reachable from the public internet',
      );
    });

    it('refuses a redirect to the cloud metadata address, before connecting', async () => {
      const result = await check(site.url('/to-metadata'));
      expect(result).toMatchObject({
        reason: 'not_public',
        detail: '169.254.169.254',
      });
      expect(resolver.calls).toEqual(['site.test']);
      expect(tripwire.attempts.map(({ address }) => address)).toEqual([
        '127.0.0.1',
      ]);
    });

    it.each(['/to-intranet', '/to-localhost-dot'])(
      'refuses a redirect to a single-label name (%s), without resolving it (issue 58)',
      async (path) => {
        const result = await check(site.url(path));
        expect(result).toMatchObject({
          reason: 'not_public',
          detail: 'single-label',
          redirects: 1,
        });
        expect(resolver.calls).toEqual(['site.test']);
      },
    );
  });
});

describe('a check of what a name resolves to', () => {
  it.each([
    ['a private address', 'private.test', '10.0.0.1'],
    ['the cloud metadata address', 'metadata.test', '169.254.169.254'],
    ['a public and a private address', 'mixed.test', '10.0.0.1'],
  ])(
    'refuses a name with %s, and never connects',
    async (_what, name, refused) => {
      const result = await check(`http://${name}/`);
      expect(result).toMatchObject({
        outcome: 'down',
        reason: 'not_public',
        detail: refused,
        address: refused,
      });
      expect(resolver.calls).toEqual([name]);
      expect(tripwire.attempts).toEqual([]);
    },
  );

  it('is no_such_name for a name with no addresses', async () => {
    const result = await check('http://empty.test/');
    expect(result).toMatchObject({ outcome: 'down', reason: 'no_such_name' });
    expect(tripwire.attempts).toEqual([]);
  });

  it('is no_such_name for a name that does not exist, and names it', async () => {
    const result = await check('http://nowhere.test/');
    expect(result).toMatchObject({
      outcome: 'down',
      reason: 'no_such_name',
      detail: 'ENOTFOUND',
    });
    expect(describeResult(result, USER_AGENT)).toBe(
      'No such name: the address nowhere.test does not exist in DNS',
    );
  });

  it('is unreachable, with the code, when resolving fails otherwise', async () => {
    const result = await check('http://site.test/', {
      resolve: () =>
        Promise.reject(Object.assign(new Error('busy'), { code: 'EAI_AGAIN' })),
    });
    expect(result).toMatchObject({
      reason: 'unreachable',
      detail: 'EAI_AGAIN',
    });
  });

  it('refuses a URL that is not http: or https:, without resolving', async () => {
    const result = await check('ftp://site.test/');
    expect(result).toMatchObject({ reason: 'not_public', detail: 'ftp:' });
    expect(resolver.calls).toEqual([]);
  });

  it('refuses a single-label name, without resolving it (issue 58)', async () => {
    const result = await check('http://intranet:8080/');
    expect(result).toMatchObject({
      reason: 'not_public',
      detail: 'single-label',
    });
    expect(resolver.calls).toEqual([]);
  });

  it('refuses a string that is no URL', async () => {
    const result = await check('not a url');
    expect(result).toMatchObject({ reason: 'not_public', detail: 'url' });
  });

  it('stops when the caller aborts it, before connecting', async () => {
    const controller = new AbortController();
    const result = await check('http://site.test/', {
      // The caller gives up while the name is being resolved.
      resolve: () => {
        controller.abort();
        return new Promise(() => undefined);
      },
      signal: controller.signal,
    });
    expect(result).toMatchObject({
      outcome: 'down',
      reason: 'unreachable',
      detail: 'ABORT_ERR',
    });
    expect(tripwire.attempts).toEqual([]);
  });

  it('does not start when the caller has already aborted', async () => {
    const result = await check('http://site.test/', {
      signal: AbortSignal.abort(),
    });
    expect(result).toMatchObject({
      reason: 'unreachable',
      detail: 'ABORT_ERR',
    });
    expect(tripwire.attempts).toEqual([]);
  });

  it('refuses the connection when beforeConnect throws', async () => {
    // Everything allowed, so that only the hook stands in the way; its own
    // tripwire, so that the refusal it records does not fail the test.
    const guard = loopbackTripwire();
    const result = await check('http://documentation.test/', {
      resolve: testResolver({ 'documentation.test': ['192.0.2.1'] }).resolve,
      isAllowed: () => true,
      beforeConnect: guard.beforeConnect,
    });
    expect(result).toMatchObject({
      outcome: 'down',
      reason: 'not_public',
      detail: '192.0.2.1',
    });
    expect(guard.violations).toEqual([{ address: '192.0.2.1', port: 80 }]);
  });
});

describe('DNS rebinding', () => {
  let site: LocalSite;

  beforeAll(async () => {
    site = await startLocalSite({
      '/': answer(200),
      '/again': redirectTo('/'),
    });
  });

  afterAll(() => site.close());

  it('connects to the address it checked, though the name would answer a private one next', async () => {
    resolver = testResolver({
      'rebind.test': (call) => (call === 1 ? ['127.0.0.1'] : ['10.0.0.1']),
    });
    const result = await check(site.url('/', 'rebind.test'));
    expect(result).toMatchObject({ outcome: 'up', address: '127.0.0.1' });
    expect(resolver.calls).toEqual(['rebind.test']);
    expect(tripwire.attempts.map(({ address }) => address)).toEqual([
      '127.0.0.1',
    ]);
  });

  it('refuses the next hop when the name then answers a private address', async () => {
    resolver = testResolver({
      'rebind.test': (call) => (call === 1 ? ['127.0.0.1'] : ['10.0.0.1']),
    });
    const result = await check(site.url('/again', 'rebind.test'));
    expect(result).toMatchObject({
      outcome: 'down',
      reason: 'not_public',
      detail: '10.0.0.1',
    });
    expect(tripwire.attempts.map(({ address }) => address)).toEqual([
      '127.0.0.1',
    ]);
  });

  it('refuses a name whose first answer is private, and never connects', async () => {
    resolver = testResolver({
      'rebind.test': (call) => (call === 1 ? ['10.0.0.1'] : ['127.0.0.1']),
    });
    const result = await check(site.url('/', 'rebind.test'));
    expect(result).toMatchObject({ reason: 'not_public', detail: '10.0.0.1' });
    expect(resolver.calls).toEqual(['rebind.test']);
    expect(tripwire.attempts).toEqual([]);
  });
});

describe('the body', () => {
  let site: LocalSite;

  beforeAll(async () => {
    site = await startLocalSite({
      '/drip': dripBody(100),
      '/huge': streamBytes(10_000_000),
      '/hundred-then-hold': (_request, response) => {
        response.writeHead(200).write('x'.repeat(100));
      },
    });
  });

  afterAll(() => site.close());

  /** The last response the site started. */
  function lastResponse() {
    const response = site.responses.at(-1);
    if (!response) throw new Error('the site saw no request');
    return response;
  }

  it('is up once 2xx headers arrive though the body drips forever, and the check ends at its deadline', async () => {
    const result = await check(site.url('/drip'), {
      timeouts: { totalMs: 800 },
    });
    expect(result).toMatchObject({ outcome: 'up', status: 200 });
    const response = lastResponse();
    await response.closed;
    expect(response.finished).toBe(false);
  });

  it('reads at most 64 KiB of a 10 MB body, then closes the connection', async () => {
    const result = await check(site.url('/huge'), {
      timeouts: { totalMs: 60_000 },
    });
    expect(result).toMatchObject({ outcome: 'up', status: 200 });
    const response = lastResponse();
    await response.closed;
    expect(response.finished).toBe(false);
  });

  it(
    'ends at maxBodyBytes though the body never ends',
    // The hang limit: with the cap ignored, the check would wait for its
    // two-minute deadline and this test would fail on its own limit.
    { timeout: 30_000 },
    async () => {
      const result = await check(site.url('/hundred-then-hold'), {
        maxBodyBytes: 50,
        timeouts: { totalMs: 120_000 },
      });
      expect(result).toMatchObject({ outcome: 'up', status: 200 });
      await lastResponse().closed;
    },
  );
});

describe('a check over HTTPS', () => {
  let authority: TestCertificateAuthority;
  let valid: LocalSite;
  let expired: LocalSite;
  let otherName: LocalSite;
  let forAddress: LocalSite;
  let plain: LocalSite;
  let silent: SilentServer;
  let validTo: Date;
  let expiredOn: Date;

  beforeAll(async () => {
    authority = createTestCertificateAuthority('Vigil Test CA');
    const now = Date.now();
    const validCertificate = authority.issue({
      names: ['site.test', 'www.site.test'],
      notBefore: new Date(now - DAY_MS),
      notAfter: new Date(now + 30 * DAY_MS),
    });
    validTo = new Date(new X509Certificate(validCertificate.cert).validTo);
    expiredOn = new Date(now - 30 * DAY_MS);
    valid = await startLocalSite(
      { '/': answer(200) },
      { tls: validCertificate },
    );
    expired = await startLocalSite(
      { '/': answer(200) },
      {
        tls: authority.issue({
          names: ['site.test'],
          notBefore: new Date(now - 60 * DAY_MS),
          notAfter: expiredOn,
        }),
      },
    );
    otherName = await startLocalSite(
      { '/': answer(200) },
      {
        tls: authority.issue({
          names: ['other.test'],
          notBefore: new Date(now - DAY_MS),
          notAfter: new Date(now + 30 * DAY_MS),
        }),
      },
    );
    forAddress = await startLocalSite(
      { '/': answer(200) },
      {
        tls: authority.issue({
          names: ['127.0.0.1'],
          notBefore: new Date(now - DAY_MS),
          notAfter: new Date(now + 30 * DAY_MS),
        }),
      },
    );
    plain = await startLocalSite({
      '/to-https': redirectTo(valid.url('/')),
      '/to-https-www': redirectTo(valid.url('/', 'www.site.test')),
    });
    silent = await startSilentServer();
  });

  afterAll(async () => {
    await Promise.all(
      [valid, expired, otherName, forAddress, plain, silent].map((server) =>
        server.close(),
      ),
    );
    authority.dispose();
  });

  it("keeps the issuer's name without the controls a site put in it: C0, C1 and bidi controls (issue 58)", async () => {
    const hostile = createTestCertificateAuthority(
      'Evil\u202eAC\u0085 \u2066Root\u2069\u200f CA\u001b[2J',
    );
    const now = Date.now();
    const site = await startLocalSite(
      { '/': answer(200) },
      {
        tls: hostile.issue({
          names: ['site.test'],
          notBefore: new Date(now - DAY_MS),
          notAfter: new Date(now + 30 * DAY_MS),
        }),
      },
    );
    try {
      const result = await check(site.url('/'), { ca: hostile.cert });
      expect(result).toMatchObject({ outcome: 'up', status: 200 });
      expect(result.certificate?.issuer).toBe('EvilAC Root CA[2J');
    } finally {
      await site.close();
      hostile.dispose();
    }
  });

  it('is up with a valid certificate, its issuer and days left', async () => {
    // 10 days and an hour before the certificate's end.
    const checkedAt = new Date(validTo.getTime() - 10 * DAY_MS - 3_600_000);
    const result = await check(valid.url('/'), {
      ca: authority.cert,
      now: () => checkedAt,
    });
    expect(result).toMatchObject({ outcome: 'up', status: 200 });
    expect(result.certificate).toEqual({
      issuer: 'Vigil Test CA',
      validTo: validTo.toISOString(),
      daysLeft: 10,
    });
    expect(Number.isInteger(result.timings.tlsMs)).toBe(true);
    expect(Number.isInteger(result.timings.connectMs)).toBe(true);
  });

  it('is down for an expired certificate, with its date in the words, and sends no request', async () => {
    const result = await check(expired.url('/'), { ca: authority.cert });
    expect(result).toMatchObject({
      outcome: 'down',
      reason: 'certificate',
      detail: 'CERT_HAS_EXPIRED',
      certificate: { issuer: 'Vigil Test CA', error: 'CERT_HAS_EXPIRED' },
    });
    expect(result.certificate?.daysLeft).toBeLessThan(0);
    expect(expired.requests).toEqual([]);
    const months = [
      'January',
      'February',
      'March',
      'April',
      'May',
      'June',
      'July',
      'August',
      'September',
      'October',
      'November',
      'December',
    ];
    expect(describeResult(result, USER_AGENT)).toBe(
      `Certificate expired on ${expiredOn.getUTCDate()} ${months[expiredOn.getUTCMonth()]} ${expiredOn.getUTCFullYear()}`,
    );
  });

  it('is down for a certificate for another name, and sends no request', async () => {
    const result = await check(otherName.url('/'), { ca: authority.cert });
    expect(result).toMatchObject({
      outcome: 'down',
      reason: 'certificate',
      detail: 'ERR_TLS_CERT_ALTNAME_INVALID',
      certificate: { error: 'ERR_TLS_CERT_ALTNAME_INVALID' },
    });
    expect(otherName.requests).toEqual([]);
    expect(describeResult(result, USER_AGENT)).toBe(
      'Certificate is for another name',
    );
  });

  it('is down for a certificate from an authority it does not trust', async () => {
    const result = await check(valid.url('/'));
    expect(result).toMatchObject({
      outcome: 'down',
      reason: 'certificate',
      detail: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
      certificate: { issuer: 'Vigil Test CA' },
    });
    expect(describeResult(result, USER_AGENT)).toBe(
      'Certificate is not from a trusted authority',
    );
  });

  it('checks an IP literal against the certificate’s IP addresses', async () => {
    const up = await check(`https://127.0.0.1:${forAddress.port}/`, {
      ca: authority.cert,
    });
    expect(up).toMatchObject({ outcome: 'up', status: 200 });
    const wrong = await check(`https://127.0.0.1:${valid.port}/`, {
      ca: authority.cert,
    });
    expect(wrong).toMatchObject({
      reason: 'certificate',
      detail: 'ERR_TLS_CERT_ALTNAME_INVALID',
    });
  });

  it('reports the certificate of the host typed, reached through a redirect', async () => {
    const result = await check(plain.url('/to-https'), { ca: authority.cert });
    expect(result).toMatchObject({ outcome: 'up', redirects: 1 });
    expect(result.certificate?.issuer).toBe('Vigil Test CA');
  });

  it('reports no certificate when only another host is https', async () => {
    const result = await check(plain.url('/to-https-www'), {
      ca: authority.cert,
    });
    expect(result).toMatchObject({ outcome: 'up', redirects: 1 });
    expect(result.certificate).toBeUndefined();
  });

  it('times out connecting when the TLS handshake never comes, in the connect phase', async () => {
    const result = await check(`https://site.test:${silent.port}/`, {
      ca: authority.cert,
      timeouts: { connectMs: 200, totalMs: 5_000 },
    });
    expect(result).toMatchObject({
      outcome: 'down',
      reason: 'timeout',
      detail: 'connect',
      timeoutMs: 200,
    });
    expect(describeResult(result, USER_AGENT)).toBe(
      'Timed out: could not connect within 0.2 s',
    );
  });
});

describe('describeResult', () => {
  const base: CheckResult = {
    outcome: 'down',
    timings: { totalMs: 10_000 },
    redirects: 0,
    checkedAt: '2026-03-03T10:00:00.000Z',
  };

  it.each<[string, Partial<CheckResult>, string]>([
    [
      'a headers timeout of 10 s',
      { reason: 'timeout', detail: 'headers', timeoutMs: 10_000 },
      'Timed out: no answer within 10 s',
    ],
    [
      'an expired certificate',
      {
        reason: 'certificate',
        detail: 'CERT_HAS_EXPIRED',
        certificate: {
          issuer: 'Example CA',
          validTo: '2026-03-03T12:00:00.000Z',
          daysLeft: -1,
          error: 'CERT_HAS_EXPIRED',
        },
      },
      'Certificate expired on 3 March 2026',
    ],
    [
      'a self-signed certificate',
      { reason: 'certificate', detail: 'DEPTH_ZERO_SELF_SIGNED_CERT' },
      'Certificate is not from a trusted authority',
    ],
    [
      'a self-signed root in the chain',
      { reason: 'certificate', detail: 'SELF_SIGNED_CERT_IN_CHAIN' },
      'Certificate is not from a trusted authority',
    ],
    [
      'a name not in DNS',
      { reason: 'no_such_name', detail: 'ENOTFOUND', host: 'example.invalid' },
      'No such name: the address example.invalid does not exist in DNS',
    ],
    [
      'a 503',
      { reason: 'status', status: 503 },
      'HTTP 503 Service Unavailable',
    ],
  ])('words %s', (_what, fields, words) => {
    expect(describeResult({ ...base, ...fields }, USER_AGENT)).toBe(words);
  });
});

describe('causeOf: a failed check as the machine keeps it', () => {
  const base: CheckResult = {
    outcome: 'down',
    timings: { totalMs: 10_000, dnsMs: 3 },
    redirects: 0,
    checkedAt: '2026-03-03T10:00:00.000Z',
    address: '203.0.113.9',
  };

  it('keeps the code and what its words need, nothing of timings or addresses', () => {
    expect(
      causeOf({
        ...base,
        reason: 'certificate',
        detail: 'CERT_HAS_EXPIRED',
        host: 'shop.example',
        certificate: {
          issuer: 'Example CA',
          validTo: '2026-03-03T12:00:00.000Z',
          daysLeft: -1,
          error: 'CERT_HAS_EXPIRED',
        },
      }),
    ).toEqual({
      code: 'certificate',
      detail: 'CERT_HAS_EXPIRED',
      host: 'shop.example',
      validTo: '2026-03-03T12:00:00.000Z',
    });
    expect(
      causeOf({
        ...base,
        reason: 'redirects',
        detail: '5',
        status: 302,
        redirects: 5,
      }),
    ).toEqual({
      code: 'redirects',
      detail: '5',
      status: 302,
      redirects: 5,
    });
  });

  it("cleans a detail a site controls (a redirect's scheme): no controls, capped at 200", () => {
    const scheme = `x\u202e${'a'.repeat(300)}\u0000:`;
    const cause = causeOf({ ...base, reason: 'not_public', detail: scheme });
    expect(cause).toMatchObject({ code: 'not_public' });
    const detail = 'detail' in cause ? (cause.detail ?? '') : '';
    expect(detail).not.toContain('\u0000');
    expect(detail).not.toContain('\u202e');
    expect(Array.from(detail)).toHaveLength(200);
  });

  it('refuses a check that found the site up', () => {
    expect(() => causeOf({ ...base, outcome: 'up', status: 200 })).toThrow(
      RangeError,
    );
  });
});

describe('describeCause: words made where they are shown', () => {
  it('words a cause from its code, as the result would be', () => {
    expect(describeCause({ code: 'status', status: 403 }, USER_AGENT)).toBe(
      `HTTP 403 Forbidden. The site may be blocking robots: allow the user agent "${USER_AGENT}" in its firewall or bot protection.`,
    );
    expect(
      describeCause(
        { code: 'redirects', detail: '5', redirects: 5 },
        USER_AGENT,
      ),
    ).toBe('Too many redirects (more than 5)');
    expect(
      describeCause({ code: 'unreachable', detail: 'ECONNRESET' }, USER_AGENT),
    ).toBe('Refused or unreachable (ECONNRESET)');
  });

  it('shows a reason kept in words before reason codes as it was written', () => {
    expect(
      describeCause(
        { code: 'worded', words: 'Refused or unreachable (ECONNREFUSED)' },
        USER_AGENT,
      ),
    ).toBe('Refused or unreachable (ECONNREFUSED)');
  });

  it("reads a code it does not know (a newer instance's) as a failure, not a crash", () => {
    const newer = JSON.parse('{"code":"quic_refused"}') as DownCause;
    expect(describeCause(newer, USER_AGENT)).toBe(
      'The check failed (quic_refused)',
    );
  });
});
