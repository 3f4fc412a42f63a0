/**
 * The monitoring the welcome page promises (issue 45), judged from the outside
 * on the service itself: against sites on 127.0.0.1 only, names resolved by
 * the test's table (never DNS), every connection through the loopback
 * tripwire, and the clock the test's, so that no test waits out an
 * interval. Alerts arrive at a real SMTP server of the test's own.
 */
import type { FastifyInstance } from 'fastify';
import type { ParsedMail } from 'mailparser';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DownCause } from '../../../machines/monitorMachine';
import { accountsRepository } from '../../../server/accounts/accounts';
import {
  CHECK_NOW_LIMIT_MS,
  type MonitorOptions,
} from '../../../server/monitor/index';
import type { CheckObservation } from '../../../server/monitor/index';
import {
  HOURS_KEPT_DAYS,
  INCIDENTS_KEPT_DAYS,
} from '../../../server/monitor/repository';
import { apiServer, signUpForLogin } from '../support/apiServer';
import {
  hook,
  pathOf,
  postForm,
  signUpAndSignIn,
  startMailService,
  tokenOf,
  type MailService,
} from '../support/mailService';
import {
  createTestCertificateAuthority,
  startLocalSite,
  answer,
} from '../../../harness/monitor/localSites';
import {
  startSwitchableSite,
  testClock,
  testMonitorOptions,
  TEST_INTERVAL_MS,
  type SwitchableSite,
  type TestClock,
} from '../../../harness/monitor/monitorService';
import {
  loopbackTripwire,
  type Tripwire,
} from '../../../harness/monitor/tripwire';

let site: SwitchableSite;
let tripwire: Tripwire;
let sites = 0;

beforeAll(async () => {
  site = await startSwitchableSite();
});

afterAll(() => site.close());

afterEach(() => {
  // No test may have tried to leave loopback.
  expect(tripwire.violations).toEqual([]);
});

/** A site number no other test uses. */
function nextSite(): number {
  sites += 1;
  return sites;
}

/** The monitor row of an account, by its address. */
async function monitorOf(app: FastifyInstance, email: string) {
  return app.database.db
    .selectFrom('monitors')
    .innerJoin('accounts', 'accounts.id', 'monitors.account_id')
    .select([
      'monitors.id',
      'monitors.state',
      'monitors.next_check_at',
      'monitors.account_id',
    ])
    .where(sql`lower(accounts.email)`, '=', email.toLowerCase())
    .executeTakeFirstOrThrow();
}

/** The page of an account's first site (ADR-0127), by the account's address. */
async function pageOf(app: FastifyInstance, email: string): Promise<string> {
  return `/sites/${(await monitorOf(app, email)).id}`;
}

/** "Check now", posted from the site's own page with a session cookie. */
async function postCheckNow(
  app: FastifyInstance,
  cookie: string,
  email: string,
  headers: Record<string, string> = {},
) {
  return app.inject({
    method: 'POST',
    url: `${await pageOf(app, email)}/check-now`,
    headers: { cookie, 'sec-fetch-site': 'same-origin', ...headers },
  });
}

/** GET a page with a session cookie. */
function get(app: FastifyInstance, url: string, cookie: string) {
  return app.inject({ method: 'GET', url, headers: { cookie } });
}

/** Confirms an account's address by its magic link, as its owner would. */
async function confirm(service: MailService, email: string, cookie: string) {
  await service.drain();
  const [mail] = service.mailsTo(email);
  if (!mail) throw new Error(`no confirmation mail to ${email}`);
  const posted = await postForm(
    service.app,
    '/link',
    { token: tokenOf(mail) },
    { cookie },
  );
  expect(posted.statusCode, pathOf(mail)).toBe(303);
}

/**
 * Marks an account's address confirmed in the database before its site's
 * first check, for the tests about what follows (how a magic link
 * confirms it, and resumes monitoring, is tested with the mail service).
 */
async function confirmedBeforeFirstCheck(app: FastifyInstance, email: string) {
  await sql`update accounts set confirmed_at = now()
             where lower(email) = ${email.toLowerCase()}`.execute(
    app.database.db,
  );
}

/**
 * A service that checks sites on the test's clock, built before the
 * enclosing describe's tests and closed after them.
 */
function monitoredService(overrides: Partial<MonitorOptions> = {}) {
  const held = {} as { app: FastifyInstance; clock: TestClock };
  beforeAll(async () => {
    held.clock = testClock();
    tripwire = loopbackTripwire();
    held.app = await apiServer({
      monitor: testMonitorOptions(held.clock, tripwire, overrides),
    });
  });
  afterAll(() => held.app.close());
  return held;
}

/**
 * An alert mail's subject for a site without a name of its own (ADR-0127):
 * what happened, then its host and its URL.
 */
function subjectOf(kind: string, n: number | string): string {
  return `${kind}: site.test:${site.site.port} (${site.url(n)})`;
}

/** The alert mails an address received: "down" and "back up" subjects. */
function alertsTo(service: MailService, email: string): ParsedMail[] {
  return service
    .mailsTo(email)
    .filter((mail) => /^(Down|Back up): /.test(mail.subject ?? ''));
}

/**
 * A mail service that checks sites on the test's clock, built before the
 * enclosing describe's tests and closed after them.
 *
 * @param overrides the monitor's options, read when the service is built
 *   (after the site has started)
 */
function monitoredMailService(
  overrides: () => Partial<MonitorOptions> = () => ({}),
) {
  const held = {} as { service: MailService; clock: TestClock };
  beforeAll(async () => {
    held.clock = testClock();
    tripwire = loopbackTripwire();
    held.service = await startMailService({
      monitor: testMonitorOptions(held.clock, tripwire, overrides()),
    });
  });
  afterAll(() => held.service.close());
  return held;
}

/** Moves the clock, runs the checks due, then sends every mail they queued. */
async function passWith(
  service: MailService,
  clock: TestClock,
  advanceMs: number,
): Promise<void> {
  clock.advance(advanceMs);
  await service.app.monitor.scheduler?.runDue();
  await service.drain();
}

/** A new site whose owner confirmed the address, checked once: up. */
async function watchedAndUp(service: MailService, clock: TestClock) {
  const n = nextSite();
  const { email, cookie } = await signUpAndSignIn(service.app, {
    url: site.url(n),
  });
  await confirm(service, email, cookie);
  const state = async () => (await monitorOf(service.app, email)).state;
  await passWith(service, clock, 0);
  expect(await state()).toBe('up');
  return { n, email, cookie, state };
}

describe('the first check and the interval', () => {
  const held = monitoredMailService(() => ({ autoStart: true }));

  it('checks a new site within seconds of its sign-up, once while the address is unconfirmed, then every interval from its confirmation on (ADR-0120)', async () => {
    const { app } = held.service;
    const n = nextSite();
    const { email, cookie } = await signUpAndSignIn(app, { url: site.url(n) });
    // Woken by the sign-up: no interval passes on the test's held.clock.
    await expect.poll(() => site.hits(n), { timeout: 10_000 }).toBe(1);
    await expect
      .poll(async () => (await monitorOf(app, email)).state)
      .toBe('up');
    // The address is not proven: that first check waits for it.
    expect((await monitorOf(app, email)).next_check_at).toBeNull();
    for (let interval = 0; interval < 3; interval += 1) {
      held.clock.advance(TEST_INTERVAL_MS);
      expect(await app.monitor.scheduler?.runDue()).toBe(0);
    }
    expect(site.hits(n)).toBe(1);
    const page = await get(app, await pageOf(app, email), cookie);
    expect(page.body).toContain(
      'We checked the site once, when you signed up. We check it on its schedule once you have confirmed your address.',
    );

    // Confirmed by the magic link: checked at once, then every interval.
    await confirm(held.service, email, cookie);
    await expect.poll(() => site.hits(n), { timeout: 10_000 }).toBe(2);
    await expect
      .poll(async () => (await monitorOf(app, email)).next_check_at)
      .not.toBeNull();
    expect(await app.monitor.scheduler?.runDue()).toBe(0);
    for (const expected of [3, 4]) {
      held.clock.advance(TEST_INTERVAL_MS);
      await expect.poll(() => site.hits(n), { timeout: 10_000 }).toBe(expected);
      await expect
        .poll(async () =>
          (await monitorOf(app, email)).next_check_at?.getTime(),
        )
        .toBeGreaterThan(held.clock.now().getTime());
      expect(site.hits(n)).toBe(expected);
    }
    const sitePage = await pageOf(app, email);
    expect((await get(app, sitePage, cookie)).body).not.toContain(
      'once you have confirmed your address',
    );
    // Nor does a "confirm first" answer, read again after confirming.
    expect(
      hook(
        (await get(app, `${sitePage}?check=unconfirmed`, cookie)).body,
        'check-now-result',
      ),
    ).toBeUndefined();
    // Every request was the monitor's: its User-Agent, no cookie.
    const requests = site.site.requests.filter((request) =>
      request.target.endsWith(`n=${n}`),
    );
    expect(requests).toHaveLength(4);
    for (const request of requests) {
      // The product and where to read about it: the mail held.service's
      // PUBLIC_URL.
      expect(request.headers['user-agent']).toBe(
        'Vigil-Monitor/1 (+https://vigil.example)',
      );
      expect(request.headers.cookie).toBeUndefined();
      expect(request.headers['accept-encoding']).toBe('identity');
    }
  });
});

describe('up, down and the alerts', () => {
  const held = monitoredMailService();

  /** One pass of the due checks, then every mail it queued sent. */
  const pass = (advanceMs: number) =>
    passWith(held.service, held.clock, advanceMs);

  it('is down only after two failures in a row, and mails one "down" and one "back up" per incident', async () => {
    const { n, email, state } = await watchedAndUp(held.service, held.clock);

    site.set(n, 'fail');
    await pass(TEST_INTERVAL_MS);
    // One failure: checked again after a third of the interval, no mail.
    expect(await state()).toBe('suspect');
    expect(alertsTo(held.service, email)).toHaveLength(0);
    await pass(TEST_INTERVAL_MS / 3);
    expect(await state()).toBe('down');
    const [down] = alertsTo(held.service, email);
    expect(alertsTo(held.service, email)).toHaveLength(1);
    expect(down?.subject).toBe(subjectOf('Down', n));
    expect(down?.text).toContain(site.url(n));
    expect(down?.text).toContain('503');
    expect(down?.from?.text).toContain('Vigil');

    // Still down: no second "down" mail.
    await pass(TEST_INTERVAL_MS);
    await pass(TEST_INTERVAL_MS);
    expect(await state()).toBe('down');
    expect(alertsTo(held.service, email)).toHaveLength(1);

    site.set(n, 'up');
    await pass(TEST_INTERVAL_MS);
    expect(await state()).toBe('up');
    const alerts = alertsTo(held.service, email);
    expect(alerts.map((mail) => mail.subject)).toEqual([
      subjectOf('Down', n),
      subjectOf('Back up', n),
    ]);
    // From the first failed check to the check that found it up: three
    // intervals and a third.
    expect(alerts[1]?.text).toContain('It was down for 3 minutes');
    expect(typeof alerts[1]?.html === 'string' && alerts[1].html).toContain(
      'is answering again',
    );

    // A failure that one retest clears sends nothing.
    site.set(n, 'fail');
    await pass(TEST_INTERVAL_MS);
    expect(await state()).toBe('suspect');
    site.set(n, 'up');
    await pass(TEST_INTERVAL_MS / 3);
    expect(await state()).toBe('up');
    expect(alertsTo(held.service, email)).toHaveLength(2);

    // The incident is kept, with its start and end.
    const incidents = await held.service.app.database.db
      .selectFrom('monitor_incidents')
      .select(['started_at', 'ended_at'])
      .where('monitor_id', '=', (await monitorOf(held.service.app, email)).id)
      .execute();
    expect(incidents).toHaveLength(1);
    expect(incidents[0]?.ended_at).toBeInstanceOf(Date);
  });

  it('stops a site’s alert mail by the one-click link its mails carry, with no session, and / sends them again (RFC 8058, ADR-0124)', async () => {
    const { service } = held;
    const { n, email, cookie, state } = await watchedAndUp(service, held.clock);
    site.set(n, 'fail');
    await pass(TEST_INTERVAL_MS);
    await pass(TEST_INTERVAL_MS / 3);
    expect(await state()).toBe('down');
    const [down] = alertsTo(service, email);
    // The raw header lines (mailparser reads List-* into its own shape).
    const headerLine = (key: string) =>
      (down?.headerLines.find((line) => line.key === key)?.line ?? '')
        .replace(/\r?\n[ \t]+/g, ' ')
        .replace(/^[^:]+:\s*/, '');
    const stop = new URL(
      /^<(https:\/\/[^>]+)>$/.exec(headerLine('list-unsubscribe'))?.[1] ?? '',
    );
    expect(stop.origin + stop.pathname).toBe(
      'https://vigil.example/alerts/stop',
    );
    expect(headerLine('list-unsubscribe-post')).toBe(
      'List-Unsubscribe=One-Click',
    );
    expect(down?.text).toContain(stop.href);
    const path = `${stop.pathname}${stop.search}`;

    // Opening it (a mail scanner does) changes nothing.
    const opened = await service.app.inject({ method: 'GET', url: path });
    expect(opened.statusCode).toBe(200);
    expect(hook(opened.body, 'alerts-stop')).toBe('Stop alert mail');
    expect(
      hook((await get(service.app, '/', cookie)).body, 'alerts-stopped'),
    ).toBeUndefined();
    // A token that is not the site's stops nothing.
    const forged = new URL(stop);
    // Another token: its last character changed (a token ending in "A"
    // gets an "E"; changing it to itself would forge nothing).
    const token = stop.searchParams.get('t') ?? '';
    forged.searchParams.set(
      't',
      `${token.slice(0, -1)}${token.endsWith('A') ? 'E' : 'A'}`,
    );
    const refused = await service.app.inject({
      method: 'POST',
      url: `${forged.pathname}${forged.search}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click',
    });
    expect(refused.statusCode).toBe(404);

    // The mail provider's one-click POST: no cookie, no Origin.
    const stopped = await service.app.inject({
      method: 'POST',
      url: path,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click',
    });
    expect(stopped.statusCode).toBe(200);
    expect(hook(stopped.body, 'alerts-stop-done')).toContain(site.url(n));
    site.set(n, 'up');
    await pass(TEST_INTERVAL_MS);
    expect(await state()).toBe('up');
    // Checked, and no "back up" mail.
    expect(alertsTo(service, email)).toHaveLength(1);
    // `/` marks it, and the site's page offers to send it again.
    expect(
      hook((await get(service.app, '/', cookie)).body, 'alerts-stopped'),
    ).toMatch(/^Alert mail stopped/);
    const sitePage = await pageOf(service.app, email);
    const page = await get(service.app, sitePage, cookie);
    expect(hook(page.body, 'alerts-stopped')).toMatch(
      /^Alert mail for this site is stopped/,
    );
    expect(page.body).toContain(
      `<form method="post" action="${sitePage}/alerts/resume" class="monitor__action" data-testid="resume-alerts">`,
    );

    // Sent again from the site's page.
    const resumed = await postForm(
      service.app,
      `${sitePage}/alerts/resume`,
      {},
      { cookie },
    );
    expect(resumed.statusCode).toBe(303);
    expect(
      hook((await get(service.app, '/', cookie)).body, 'alerts-stopped'),
    ).toBeUndefined();
    site.set(n, 'fail');
    await pass(TEST_INTERVAL_MS);
    await pass(TEST_INTERVAL_MS / 3);
    expect(alertsTo(service, email).map((mail) => mail.subject)).toEqual([
      subjectOf('Down', n),
      subjectOf('Down', n),
    ]);
  });

  it('mails at most three incidents an hour: the fourth says the site is flapping, then nothing until one mail says it has been steady for 30 minutes (ADR-0125)', async () => {
    const { service } = held;
    const { n, email, state } = await watchedAndUp(service, held.clock);
    const subjects = () =>
      service
        .mailsTo(email)
        .map((mail) => mail.subject ?? '')
        .filter((subject) => subject.endsWith(`(${site.url(n)})`));
    // Down and back up six times in about 14 minutes.
    for (let flap = 0; flap < 6; flap += 1) {
      site.set(n, 'fail');
      await pass(TEST_INTERVAL_MS);
      await pass(TEST_INTERVAL_MS / 3);
      expect(await state()).toBe('down');
      site.set(n, 'up');
      await pass(TEST_INTERVAL_MS);
      expect(await state()).toBe('up');
    }
    const pair = [subjectOf('Down', n), subjectOf('Back up', n)];
    expect(subjects()).toEqual([
      ...pair,
      ...pair,
      ...pair,
      subjectOf('Flapping', n),
    ]);
    const flapping = service
      .mailsTo(email)
      .find((mail) => mail.subject === subjectOf('Flapping', n));
    expect(flapping?.text).toContain('has gone down 4 times within an hour');
    // Its incidents: three, and the flapping one that went down three times.
    const incidents = await service.app.database.db
      .selectFrom('monitor_incidents')
      .select(['flaps', 'ended_at'])
      .where('monitor_id', '=', (await monitorOf(service.app, email)).id)
      .orderBy('started_at')
      .execute();
    expect(incidents.map((incident) => incident.flaps)).toEqual([1, 1, 1, 3]);

    // Up for half an hour: one mail says so, with what happened meanwhile.
    for (let minute = 0; minute < 29; minute += 1) {
      await pass(TEST_INTERVAL_MS);
    }
    expect(subjects()).toHaveLength(7);
    for (let minute = 0; minute < 3; minute += 1) {
      await pass(TEST_INTERVAL_MS);
    }
    expect(subjects()).toEqual([
      ...pair,
      ...pair,
      ...pair,
      subjectOf('Flapping', n),
      subjectOf('Steady again', n),
    ]);
    const steady = service
      .mailsTo(email)
      .find((mail) => mail.subject === subjectOf('Steady again', n));
    expect(steady?.text).toContain('it went down 3 times');
  });

  it('checks the site of an unconfirmed address once and mails it no alert (ADR-0120)', async () => {
    const n = nextSite();
    const { email } = await signUpAndSignIn(held.service.app, {
      url: site.url(n),
    });
    await pass(0);
    expect(site.hits(n)).toBe(1);
    site.set(n, 'fail');
    for (let interval = 0; interval < 5; interval += 1) {
      await pass(TEST_INTERVAL_MS);
    }
    expect(site.hits(n)).toBe(1);
    expect((await monitorOf(held.service.app, email)).state).toBe('up');
    expect(alertsTo(held.service, email)).toHaveLength(0);
    // Only its confirmation mail went to the address.
    expect(held.service.mailsTo(email)).toHaveLength(1);
  });

  it('writes nothing of a check that was running when the address was confirmed, and checks the site again at once', async () => {
    const n = nextSite();
    const { email, cookie } = await signUpAndSignIn(held.service.app, {
      url: site.url(n),
    });
    const { repository } = held.service.app.monitor;
    const monitor = await monitorOf(held.service.app, email);
    const running = (
      await repository.claim(100, 60_000, held.clock.now())
    ).find((claimed) => claimed.id === String(monitor.id));
    expect(running).toBeDefined();
    if (!running) return;
    await confirm(held.service, email, cookie);
    // Its result, read while the address was unproven, would leave the
    // confirmed site waiting: the confirmation took its claim.
    const late = await repository.record([
      {
        monitor: running,
        result: {
          outcome: 'up',
          status: 200,
          timings: { totalMs: 5 },
          redirects: 0,
          checkedAt: held.clock.now().toISOString(),
        },
        checkedAt: held.clock.now(),
        state: 'up',
        context: { failingSince: null, reason: null },
        alerts: [],
        nextCheckAt: new Date(held.clock.now().getTime() + TEST_INTERVAL_MS),
      },
    ]);
    expect(late.written.size).toBe(0);
    expect((await monitorOf(held.service.app, email)).state).toBe('pending');
    await pass(0);
    expect(site.hits(n)).toBe(1);
    const after = await monitorOf(held.service.app, email);
    expect(after.state).toBe('up');
    expect(after.next_check_at?.getTime()).toBeGreaterThan(
      held.clock.now().getTime(),
    );
  });

  it('ends the checks of an account that is deleted', async () => {
    const n = nextSite();
    const { email } = await signUpAndSignIn(held.service.app, {
      url: site.url(n),
    });
    // Deleted, before its first check, as housekeeping deletes an account
    // left unconfirmed.
    await sql`update accounts set confirm_by = now() - interval '1 day'
               where lower(email) = ${email.toLowerCase()}`.execute(
      held.service.app.database.db,
    );
    await accountsRepository(held.service.app.database.db).deleteUnconfirmed();
    await pass(0);
    await pass(TEST_INTERVAL_MS);
    expect(site.hits(n)).toBe(0);
  });
});

describe('the canaries (issue 58)', () => {
  const canaries = ['canary-1', 'canary-2', 'canary-3'];
  const held = monitoredMailService(() => ({
    canaryUrls: canaries.map((name) => site.url(name)),
  }));

  const pass = (advanceMs: number) =>
    passWith(held.service, held.clock, advanceMs);

  const health = () =>
    held.service.app.inject({ method: 'GET', url: '/healthz/monitor' });

  it('while most of them fail, calls no site down and mails nothing; once they answer, a site that still fails is down', async () => {
    const { n, email, state } = await watchedAndUp(held.service, held.clock);
    expect((await health()).statusCode).toBe(200);

    // This machine "loses its network": two canaries of three and the
    // site fail alike.
    site.set('canary-1', 'fail');
    site.set('canary-2', 'fail');
    site.set(n, 'fail');
    const hitsBefore = site.hits(n);
    for (const advance of [
      TEST_INTERVAL_MS,
      TEST_INTERVAL_MS / 3,
      TEST_INTERVAL_MS / 3,
      TEST_INTERVAL_MS,
    ]) {
      await pass(advance);
    }
    // Checked all along, and each failure inconclusive: still up, no mail.
    expect(site.hits(n) - hitsBefore).toBe(4);
    expect(await state()).toBe('up');
    expect(alertsTo(held.service, email)).toHaveLength(0);
    const cutOff = await health();
    expect(cutOff.statusCode).toBe(503);
    expect(cutOff.headers['cache-control']).toBe('no-store');
    expect(cutOff.json()).toEqual({
      status: 'inconclusive',
      reason: expect.stringMatching(
        /^2 of 3 canaries fail since .+: this instance may be cut off, so no site is called down$/,
      ),
    });
    // The pages' probe is not moved by it.
    expect(
      (await held.service.app.inject({ method: 'GET', url: '/healthz' }))
        .statusCode,
    ).toBe(200);

    // The canaries answer again; the site still fails: now that counts.
    site.set('canary-1', 'up');
    site.set('canary-2', 'up');
    await pass(TEST_INTERVAL_MS / 3);
    expect(await state()).toBe('suspect');
    await pass(TEST_INTERVAL_MS / 3);
    expect(await state()).toBe('down');
    expect(alertsTo(held.service, email).map((mail) => mail.subject)).toEqual([
      subjectOf('Down', n),
    ]);
    expect((await health()).statusCode).toBe(200);
  });
});

describe('a claim that outlived its lease', () => {
  const service = monitoredService();

  it('writes nothing once another claim holds the site; that claim writes', async () => {
    const { app, clock } = service;
    const n = nextSite();
    const { body } = await signUpForLogin(app, { url: site.url(n) });
    const email = body.get('email') ?? '';
    const { repository } = app.monitor;
    const monitor = await monitorOf(app, email);
    const lease = 60_000;
    const first = (await repository.claim(100, lease, clock.now())).find(
      (claimed) => claimed.id === String(monitor.id),
    );
    expect(first).toBeDefined();
    // While the lease holds, nobody else takes it.
    expect(
      (await repository.claim(100, lease, clock.now())).map((c) => c.id),
    ).not.toContain(String(monitor.id));
    clock.advance(lease + 1);
    const second = (await repository.claim(100, lease, clock.now())).find(
      (claimed) => claimed.id === String(monitor.id),
    );
    expect(second?.claim).toBe((first?.claim ?? 0) + 1);
    if (!first || !second) return;

    const result = (outcome: 'up' | 'down') => ({
      outcome,
      timings: { totalMs: 5 },
      redirects: 0,
      checkedAt: clock.now().toISOString(),
      ...(outcome === 'down' && { reason: 'status' as const, status: 500 }),
    });
    const late = await repository.record([
      {
        monitor: first,
        result: result('down'),
        checkedAt: clock.now(),
        state: 'suspect',
        context: {
          failingSince: clock.now().getTime(),
          reason: { code: 'status', status: 500 },
        },
        alerts: [],
        nextCheckAt: new Date(clock.now().getTime() + 20_000),
      },
    ]);
    expect(late.written.size).toBe(0);
    expect((await monitorOf(app, email)).state).toBe('pending');
    const current = await repository.record([
      {
        monitor: second,
        result: result('up'),
        checkedAt: clock.now(),
        state: 'up',
        context: { failingSince: null, reason: null },
        alerts: [],
        nextCheckAt: new Date(clock.now().getTime() + TEST_INTERVAL_MS),
      },
    ]);
    expect([...current.written]).toEqual([String(monitor.id)]);
    expect((await monitorOf(app, email)).state).toBe('up');
  });

  it('of two results of one site in one batch, writes the check, incident and alert of the claim that holds it only', async () => {
    const { app, clock } = service;
    const n = nextSite();
    const { body } = await signUpForLogin(app, { url: site.url(n) });
    const email = body.get('email') ?? '';
    await confirmedBeforeFirstCheck(app, email);
    const { repository } = app.monitor;
    const monitor = await monitorOf(app, email);
    const lease = 60_000;
    const take = async () =>
      (await repository.claim(100, lease, clock.now())).find(
        (claimed) => claimed.id === String(monitor.id),
      );
    const stalled = await take();
    clock.advance(lease + 1);
    const holding = await take();
    expect(holding?.claim).toBe((stalled?.claim ?? 0) + 1);
    if (!stalled || !holding) return;
    // Each claim's check found the site down, and its transition queued a
    // "down": a stalled write arriving in the batch of the claim after it.
    const down = (claimed: typeof stalled, reason: DownCause) => {
      const at = clock.now().getTime();
      return {
        monitor: claimed,
        result: {
          outcome: 'down' as const,
          reason: 'status' as const,
          status: 503,
          timings: { totalMs: 5 },
          redirects: 0,
          checkedAt: clock.now().toISOString(),
        },
        checkedAt: clock.now(),
        state: 'down' as const,
        context: { failingSince: at, reason },
        alerts: [{ kind: 'down' as const, startedAt: at, reason }],
        nextCheckAt: new Date(at + TEST_INTERVAL_MS),
      };
    };
    const outcome = await repository.record([
      down(stalled, { code: 'status', status: 503, detail: 'stalled' }),
      down(holding, { code: 'status', status: 503 }),
    ]);
    expect([...outcome.written]).toEqual([String(monitor.id)]);
    const { db } = app.database;
    const checks = await db
      .selectFrom('monitor_checks')
      .select('status')
      .where('monitor_id', '=', String(monitor.id))
      .execute();
    expect(checks).toHaveLength(1);
    const incidents = await db
      .selectFrom('monitor_incidents')
      .select('reason')
      .where('monitor_id', '=', String(monitor.id))
      .execute();
    expect(incidents.map((incident) => incident.reason)).toEqual([
      { code: 'status', status: 503 },
    ]);
    const alerts = await db
      .selectFrom('deliveries')
      .select(['kind', 'payload'])
      .where('account_id', '=', monitor.account_id)
      .where('kind', '=', 'site.down')
      .execute();
    expect(alerts).toHaveLength(1);
    expect(JSON.stringify(alerts[0]?.payload)).not.toContain('stalled');
  });
});

describe('a result the database refuses (issue 58)', () => {
  const service = monitoredService();

  it('costs no other site its result: the batch is written check by check, and the refused one is parked', async () => {
    const { app, clock } = service;
    const emails: string[] = [];
    for (let index = 0; index < 5; index += 1) {
      const { body } = await signUpForLogin(app, { url: site.url(nextSite()) });
      emails.push(body.get('email') ?? '');
    }
    const ids = await Promise.all(
      emails.map(async (email) => String((await monitorOf(app, email)).id)),
    );
    const { repository } = app.monitor;
    const claimed = (await repository.claim(100, 60_000, clock.now())).filter(
      (monitor) => ids.includes(monitor.id),
    );
    expect(claimed.map((monitor) => monitor.id).sort()).toEqual(
      [...ids].sort(),
    );
    const refused = claimed[2]?.id;
    // A result as the check would give it had a site's text slipped
    // through uncleaned: PostgreSQL and PGlite refuse \u0000 in jsonb.
    const outcome = await repository.record(
      claimed.map((monitor) => ({
        monitor,
        result: {
          outcome: 'down' as const,
          reason: 'certificate' as const,
          detail: monitor.id === refused ? 'Evil\u0000CA' : 'CERT_HAS_EXPIRED',
          timings: { totalMs: 5 },
          redirects: 0,
          checkedAt: clock.now().toISOString(),
        },
        checkedAt: clock.now(),
        state: 'suspect' as const,
        context: {
          failingSince: clock.now().getTime(),
          reason: { code: 'certificate', detail: 'CERT_HAS_EXPIRED' },
        },
        alerts: [],
        nextCheckAt: new Date(clock.now().getTime() + 20_000),
      })),
    );
    expect(outcome.parked).toEqual([refused]);
    expect([...outcome.written].sort()).toEqual(
      ids.filter((id) => id !== refused).sort(),
    );
    for (const [index, email] of emails.entries()) {
      expect((await monitorOf(app, email)).state).toBe(
        ids[index] === refused ? 'pending' : 'suspect',
      );
    }
  });
});

describe('slots that sites which never answer cannot fill (issue 58)', () => {
  /**
   * A service that checks on its own, whose tarpits' checks wait far
   * longer than a test runs.
   */
  function tarpitService(
    concurrency: number,
    slotHoldMs: number,
    observe?: (observation: CheckObservation) => void,
  ) {
    const clock = testClock();
    tripwire = loopbackTripwire();
    return apiServer({
      monitor: testMonitorOptions(clock, tripwire, {
        concurrency,
        timeouts: { connectMs: 1_000, headersMs: 60_000, totalMs: 60_000 },
        slotHoldMs,
        autoStart: true,
        ...(observe && { observe }),
      }),
    });
  }

  it('with 20 slots and 40 sites that accept and never answer, checks every other site within 5 s of its due time', async () => {
    const observed: CheckObservation[] = [];
    // A slot is held a fifth of a second (1 s in production).
    const app = await tarpitService(20, 200, (observation) =>
      observed.push(observation),
    );
    try {
      const tarpits: number[] = [];
      for (let index = 0; index < 40; index += 1) {
        const n = nextSite();
        site.set(n, 'hang');
        tarpits.push(n);
        await signUpForLogin(app, { url: site.url(n) });
      }
      // Every slot is taken by a tarpit's check by now.
      await expect
        .poll(() => tarpits.filter((n) => site.hits(n) > 0).length, {
          timeout: 10_000,
        })
        .toBeGreaterThanOrEqual(20);
      const honest: string[] = [];
      for (let index = 0; index < 20; index += 1) {
        const { body } = await signUpForLogin(app, {
          url: site.url(nextSite()),
        });
        honest.push(String((await monitorOf(app, body.get('email') ?? '')).id));
      }
      await expect
        .poll(
          () =>
            observed.filter((check) => honest.includes(check.monitorId)).length,
          { timeout: 20_000 },
        )
        .toBe(20);
      for (const check of observed) {
        expect(check.outcome).toBe('up');
        expect(
          check.startedAt.getTime() - check.dueAt.getTime(),
        ).toBeLessThanOrEqual(5_000);
      }
      // Every tarpit's check is in flight, none written.
      expect(tarpits.every((n) => site.hits(n) === 1)).toBe(true);
    } finally {
      await app.close();
    }
  });

  it('"Check now" takes a free slot like a claim; with none free, the site is due at once instead', async () => {
    const app = await tarpitService(1, 60_000);
    try {
      const tarpit = nextSite();
      site.set(tarpit, 'hang');
      await signUpForLogin(app, { url: site.url(tarpit) });
      await expect.poll(() => site.hits(tarpit), { timeout: 10_000 }).toBe(1);
      const n = nextSite();
      const { cookie, email } = await signUpAndSignIn(app, {
        url: site.url(n),
      });
      await confirmedBeforeFirstCheck(app, email);
      const pressed = await postCheckNow(app, cookie, email);
      expect(pressed.headers.location).toBe(
        `${await pageOf(app, email)}?check=queued`,
      );
      expect(site.hits(n)).toBe(0);
      expect(
        (await monitorOf(app, email)).next_check_at?.getTime(),
      ).toBeLessThanOrEqual(Date.now());
    } finally {
      await app.close();
    }
  });
});

describe('"Check now"', () => {
  const service = monitoredService();

  const checkNow = (
    cookie: string,
    email: string,
    headers: Record<string, string> = {},
  ) => postCheckNow(service.app, cookie, email, headers);

  it("runs a check at once and comes back to the site's page with its result; one a minute per site", async () => {
    const { app, clock } = service;
    const n = nextSite();
    const { cookie, email } = await signUpAndSignIn(app, { url: site.url(n) });
    await confirmedBeforeFirstCheck(app, email);
    const sitePage = await pageOf(app, email);
    const before = await get(app, sitePage, cookie);
    expect(hook(before.body, 'monitor-state')).toBe(
      'Checking for the first time',
    );

    const first = await checkNow(cookie, email);
    expect(first.statusCode).toBe(303);
    expect(first.headers.location).toBe(`${sitePage}?check=checked`);
    expect(site.hits(n)).toBe(1);
    const page = await get(app, `${sitePage}?check=checked`, cookie);
    expect(hook(page.body, 'monitor-state')).toBe('Up');
    expect(hook(page.body, 'monitor-last-check')).toMatch(
      /^Last checked just now \(.+ UTC on .+\) ?: HTTP 200 in \d+ ms$/,
    );
    expect(hook(page.body, 'check-now-result')).toContain('just checked');

    const again = await checkNow(cookie, email);
    expect(again.headers.location).toBe(`${sitePage}?check=limited`);
    expect(site.hits(n)).toBe(1);
    const limited = await get(app, `${sitePage}?check=limited`, cookie);
    expect(hook(limited.body, 'check-now-result')).toContain(
      'less than a minute ago',
    );

    clock.advance(CHECK_NOW_LIMIT_MS);
    expect((await checkNow(cookie, email)).headers.location).toBe(
      `${sitePage}?check=checked`,
    );
    expect(site.hits(n)).toBe(2);
  });

  it('is refused while the address is unconfirmed, with a sentence saying why (ADR-0120)', async () => {
    const { app } = service;
    const n = nextSite();
    const { cookie, email } = await signUpAndSignIn(app, { url: site.url(n) });
    const sitePage = await pageOf(app, email);
    const refused = await checkNow(cookie, email);
    expect(refused.statusCode).toBe(303);
    expect(refused.headers.location).toBe(`${sitePage}?check=unconfirmed`);
    // Its first check, which the sign-up made due, ran; nothing more.
    await app.monitor.scheduler?.runDue();
    expect(site.hits(n)).toBe(1);
    expect((await checkNow(cookie, email)).headers.location).toBe(
      `${sitePage}?check=unconfirmed`,
    );
    expect(site.hits(n)).toBe(1);
    const page = await get(app, `${sitePage}?check=unconfirmed`, cookie);
    expect(hook(page.body, 'check-now-result')).toBe(
      'We check the site on request, and on its schedule, once you have confirmed your address: open the link we mailed you.',
    );
  });

  it('is refused from another site, and without a session', async () => {
    const { app } = service;
    const n = nextSite();
    const { cookie, email } = await signUpAndSignIn(app, { url: site.url(n) });
    const crossSite = await checkNow(cookie, email, {
      'sec-fetch-site': 'cross-site',
    });
    expect(crossSite.statusCode).toBe(403);
    const signedOut = await app.inject({
      method: 'POST',
      url: `${await pageOf(app, email)}/check-now`,
      headers: { 'sec-fetch-site': 'same-origin' },
    });
    expect(signedOut.statusCode).toBe(303);
    expect(signedOut.headers.location).toBe('/');
    expect(site.hits(n)).toBe(0);
  });

  it('on an instance that checks nothing (MONITOR=off), makes the check due for one that does', async () => {
    const off = await apiServer();
    try {
      expect(off.monitor.scheduler).toBeUndefined();
      const n = nextSite();
      const { cookie, email } = await signUpAndSignIn(off, {
        url: site.url(n),
      });
      const sitePage = await pageOf(off, email);
      // Before confirmation it is refused here too.
      const early = await postCheckNow(off, cookie, email);
      expect(early.headers.location).toBe(`${sitePage}?check=unconfirmed`);
      await confirmedBeforeFirstCheck(off, email);
      // Due at once anyway (a new site); push it out, as after a check.
      await sql`update monitors set next_check_at = now() + interval '1 hour'`.execute(
        off.database.db,
      );
      const posted = await postCheckNow(off, cookie, email);
      expect(posted.headers.location).toBe(`${sitePage}?check=queued`);
      expect(
        (await monitorOf(off, email)).next_check_at?.getTime(),
      ).toBeLessThanOrEqual(Date.now());
      const again = await postCheckNow(off, cookie, email);
      expect(again.headers.location).toBe(`${sitePage}?check=limited`);
      expect(site.hits(n)).toBe(0);
    } finally {
      await off.close();
    }
  });
});

describe("what a site's page shows", () => {
  it('an https site: its state in words, the last check, the certificate, the chart with its text, and "Check now"', async () => {
    const ca = createTestCertificateAuthority();
    const now = Date.now();
    const secure = await startLocalSite(
      { '/': answer(200) },
      {
        tls: ca.issue({
          names: ['site.test'],
          notBefore: new Date(now - 86_400_000),
          notAfter: new Date(now + 30.5 * 86_400_000),
        }),
      },
    );
    const clock = testClock();
    tripwire = loopbackTripwire();
    const app = await apiServer({
      monitor: testMonitorOptions(clock, tripwire, { ca: ca.cert }),
    });
    try {
      const { cookie, email } = await signUpAndSignIn(app, {
        url: secure.url('/'),
      });
      await app.monitor.scheduler?.runDue();
      const sitePage = await pageOf(app, email);
      const page = await get(app, sitePage, cookie);
      expect(page.statusCode).toBe(200);
      expect(hook(page.body, 'monitor-state')).toBe('Up');
      expect(hook(page.body, 'monitor-last-check')).toMatch(
        /HTTP 200 in \d+ ms/,
      );
      expect(hook(page.body, 'monitor-certificate')).toMatch(
        /^Certificate: valid until \d+ \w+ \d{4} \(30 days left\), issued by Vigil Test CA\.$/,
      );
      const chart = hook(page.body, 'monitor-chart') ?? '';
      expect(chart).toMatch(
        /^Last 24 hours: median response \d+ ms, slowest \d+ ms, time down 0 seconds\./,
      );
      expect(page.body).toMatch(
        /<svg class="chart"[^>]*role="img" aria-labelledby="monitor-chart-summary"/,
      );
      expect(page.body).toContain(
        `<form method="post" action="${sitePage}/check-now" class="monitor__action">\n<button type="submit" class="button button--secondary" data-testid="check-now">`,
      );
    } finally {
      await app.close();
      await secure.close();
      ca.dispose();
    }
  });
});

describe('storage that stays bounded', () => {
  const service = monitoredService();

  it('rolls the checks of an hour that ended more than an hour ago into one row, and keeps the rest raw', async () => {
    const { app, clock } = service;
    const n = nextSite();
    const { body } = await signUpForLogin(app, { url: site.url(n) });
    const monitor = await monitorOf(app, body.get('email') ?? '');
    const hour = 3_600_000;
    const now = clock.now();
    const start = new Date(Math.floor(now.getTime() / hour) * hour - 2 * hour);
    const at = (minutes: number) =>
      new Date(start.getTime() + minutes * 60_000);
    const checks = [
      { checked_at: at(1), up: true, status: 200, total_ms: 100 },
      { checked_at: at(2), up: true, status: 200, total_ms: 300 },
      { checked_at: at(3), up: false, status: 503, total_ms: 40 },
      { checked_at: at(4), up: true, status: 200, total_ms: 200 },
      // The current hour: kept raw.
      { checked_at: now, up: true, status: 200, total_ms: 50 },
    ];
    await app.database.db
      .insertInto('monitor_checks')
      .values(checks.map((check) => ({ ...check, monitor_id: monitor.id })))
      .execute();

    expect(await app.monitor.repository.rollUp(now)).toBe(4);
    const hours = await app.database.db
      .selectFrom('monitor_hours')
      .selectAll()
      .where('monitor_id', '=', monitor.id)
      .execute();
    expect(hours).toEqual([
      {
        monitor_id: expect.anything(),
        hour: start,
        checks: 4,
        up: 3,
        median_ms: 200,
        slowest_ms: 300,
      },
    ]);
    const raw = await app.database.db
      .selectFrom('monitor_checks')
      .select('total_ms')
      .where('monitor_id', '=', monitor.id)
      .execute();
    expect(raw).toEqual([{ total_ms: 50 }]);
    // Nothing more to roll up.
    expect(await app.monitor.repository.rollUp(now)).toBe(0);

    // The chart reads both: the rolled-up hour and the raw one.
    const view = await app.monitor.repository.view(
      monitor.account_id,
      undefined,
      now,
    );
    expect(view?.hours.map((entry) => [entry.checks, entry.up])).toEqual([
      [4, 3],
      [1, 1],
    ]);
  });

  it(`deletes hours older than ${HOURS_KEPT_DAYS} days and incidents ended more than ${INCIDENTS_KEPT_DAYS} days ago`, async () => {
    const { app, clock } = service;
    const n = nextSite();
    const { body } = await signUpForLogin(app, { url: site.url(n) });
    const monitor = await monitorOf(app, body.get('email') ?? '');
    const day = 86_400_000;
    const now = clock.now();
    const daysAgo = (days: number) =>
      new Date(
        Math.floor((now.getTime() - days * day) / 3_600_000) * 3_600_000,
      );
    await app.database.db
      .insertInto('monitor_hours')
      .values(
        [HOURS_KEPT_DAYS + 1, HOURS_KEPT_DAYS - 1].map((days) => ({
          monitor_id: monitor.id,
          hour: daysAgo(days),
          checks: 60,
          up: 60,
          median_ms: 10,
          slowest_ms: 20,
        })),
      )
      .execute();
    await app.database.db
      .insertInto('monitor_incidents')
      .values(
        [INCIDENTS_KEPT_DAYS + 1, INCIDENTS_KEPT_DAYS - 1].map((days) => ({
          monitor_id: monitor.id,
          started_at: daysAgo(days + 1),
          ended_at: daysAgo(days),
          reason: { code: 'status' as const, status: 503 },
        })),
      )
      .execute();
    const deleted = await app.monitor.repository.deleteOld(now);
    expect(deleted).toEqual({ hours: 1, incidents: 1 });
    const kept = await app.database.db
      .selectFrom('monitor_hours')
      .select('hour')
      .where('monitor_id', '=', monitor.id)
      .execute();
    expect(kept).toEqual([{ hour: daysAgo(HOURS_KEPT_DAYS - 1) }]);
  });
});
