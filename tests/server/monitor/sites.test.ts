/**
 * Many sites, one account (issue 59): adding, editing, pausing, resuming
 * and removing sites from `/` and each site's page, judged from the
 * outside on the service: forms posted as a browser posts them (same
 * origin, form-encoded), sites on 127.0.0.1 under names the test's table
 * resolves (never DNS), every connection through the loopback tripwire,
 * and the clock the test's.
 */
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
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
  testResolver,
  type Tripwire,
} from '../../../harness/monitor/tripwire';
import { apiServer } from '../support/apiServer';
import { accountPages, hooks } from '../support/accountPages';
import { hook, postForm, signUpAndSignIn } from '../support/mailService';

const LIMIT = 3;

let site: SwitchableSite;
let tripwire: Tripwire;
let clock: TestClock;
let app: FastifyInstance;
let made = 0;

beforeAll(async () => {
  site = await startSwitchableSite();
  clock = testClock();
  tripwire = loopbackTripwire();
  app = await apiServer({
    monitor: testMonitorOptions(clock, tripwire, {
      resolve: testResolver({
        'site.test': ['127.0.0.1'],
        'other.test': ['127.0.0.1'],
        // A name that leads inside a private network.
        'inside.test': ['10.0.0.5'],
      }).resolve,
    }),
    sites: { perAccount: LIMIT, intervalMs: TEST_INTERVAL_MS },
  });
});

afterAll(async () => {
  await app.close();
  await site.close();
});

afterEach(() => {
  // No test may have tried to leave loopback.
  expect(tripwire.violations).toEqual([]);
});

/** A site number no other test uses. */
function nextSite(): number {
  made += 1;
  return made;
}

const { get, post, confirmedAccount: confirmedWith } = accountPages(() => app);

/** An account with its address confirmed, signed in, with the sign-up's site. */
function confirmedAccount(url = site.url(nextSite())) {
  return confirmedWith(url);
}

/** The account's sites as rows, oldest first. */
async function sitesOf(email: string) {
  return (
    app.database.db
      .selectFrom('monitors')
      .innerJoin('accounts', 'accounts.id', 'monitors.account_id')
      .select([
        'monitors.id',
        'monitors.site_url',
        'monitors.name',
        'monitors.state',
        'monitors.interval_factor',
        'monitors.paused_at',
        'monitors.next_check_at',
      ])
      .where(sql`lower(accounts.email)`, '=', email.toLowerCase())
      .orderBy('monitors.id')
      .execute()
      // A bigint, which the engines read as a number or as text.
      .then((rows) => rows.map((row) => ({ ...row, id: String(row.id) })))
  );
}

/** Adds a site by the form; returns the answer. */
function addSite(
  cookie: string,
  fields: Partial<Record<'url' | 'name' | 'interval', string>>,
) {
  return post('/sites', cookie, {
    url: '',
    name: '',
    interval: String(TEST_INTERVAL_MS / 1000),
    ...fields,
  });
}

/** Runs every check due now, on the test's clock. */
async function runDue(): Promise<void> {
  await app.monitor.scheduler?.runDue();
}

/** The kinds of the alerts queued about a site (`down`, …), oldest first. */
async function alertKindsOf(siteId: string): Promise<string[]> {
  const rows = await app.database.db
    .selectFrom('deliveries')
    .select('kind')
    .where('stream', 'like', `site:${siteId}|%`)
    .orderBy('id')
    .execute();
  return rows.map((row) => row.kind.replace(/^site\./, ''));
}

/**
 * Site `n`, just added: its first check up, then two failures in a row
 * (the second a third of the interval after the first): down, its "down"
 * alert queued.
 */
async function checkedThenDown(n: number): Promise<void> {
  await runDue();
  site.set(n, 'fail');
  clock.advance(TEST_INTERVAL_MS);
  await runDue();
  clock.advance(TEST_INTERVAL_MS / 3);
  await runDue();
}

describe('/ lists the sites', () => {
  it('the sign-up’s site is the first: its name (its host), URL, state in words, and a link to its page', async () => {
    const n = nextSite();
    const { cookie, email } = await confirmedAccount(site.url(n));
    await runDue();
    const page = await get('/', cookie);
    expect(hooks(page.body, 'site')).toHaveLength(1);
    expect(hook(page.body, 'site-name')).toBe(`site.test:${site.site.port}`);
    expect(hook(page.body, 'site-url')).toBe(site.url(n));
    expect(hook(page.body, 'monitor-state')).toBe('Up');
    const [row] = await sitesOf(email);
    expect(page.body).toContain(
      `<a href="/sites/${row?.id}" data-testid="site-link">`,
    );
    expect(page.body).toMatch(
      /<a [^>]*href="\/sites\/new"[^>]*data-testid="add-site"/,
    );
    expect(hook(page.body, 'no-sites')).toBeUndefined();
  });

  it('an account with no site says so, and offers to add one', async () => {
    const { cookie, email } = await confirmedAccount();
    // As an account that signed up without a site.
    await app.database.db
      .deleteFrom('monitors')
      .where(
        'id',
        'in',
        (await sitesOf(email)).map((row) => row.id),
      )
      .execute();
    const page = await get('/', cookie);
    expect(hook(page.body, 'no-sites')).toMatch(/not watching any site yet/);
    expect(hooks(page.body, 'site')).toEqual([]);
    expect(hook(page.body, 'add-site')).toBe('Add a site');
  });
});

describe('adding a site', () => {
  it('adds it with its name and interval, answers 303 to its page, and checks it at once', async () => {
    const { cookie, email } = await confirmedAccount();
    const n = nextSite();
    const form = await get('/sites/new', cookie);
    expect(form.statusCode).toBe(200);
    expect(form.body).toContain('data-testid="site-form"');
    // The options: the base interval times 1, 2, 5, 10, 30 and 60, in seconds.
    expect(
      [...form.body.matchAll(/<option value="(\d+)"/g)].map((m) => m[1]),
    ).toEqual(['60', '120', '300', '600', '1800', '3600']);
    expect(form.body).toContain('<option value="300">Every 5 minutes</option>');

    const added = await addSite(cookie, {
      url: site.url(n),
      name: 'Shop',
      interval: '300',
    });
    expect(added.statusCode).toBe(303);
    const rows = await sitesOf(email);
    expect(rows).toHaveLength(2);
    const row = rows[1];
    expect(added.headers.location).toBe(`/sites/${row?.id}?done=added`);
    expect(row).toMatchObject({
      site_url: site.url(n),
      name: 'Shop',
      interval_factor: 5,
      state: 'pending',
    });
    // Due at once: the scheduler's next pass checks it.
    expect(row?.next_check_at?.getTime()).toBeLessThanOrEqual(
      clock.now().getTime(),
    );
    await runDue();
    expect(site.hits(n)).toBe(1);
    // Next due five base intervals later.
    const [, checked] = await sitesOf(email);
    expect(checked?.state).toBe('up');
    expect(checked?.next_check_at?.getTime()).toBe(
      (row?.next_check_at?.getTime() ?? 0) + 5 * TEST_INTERVAL_MS,
    );
    const page = await get(added.headers.location ?? '', cookie);
    expect(hook(page.body, 'site-page')).toContain('Shop');
    expect(hook(page.body, 'site-note')).toMatch(/added/);
    expect(page.body).toContain('Checked every 5 minutes.');
    const list = await get('/', cookie);
    expect(hooks(list.body, 'site-name')).toEqual([
      `site.test:${site.site.port}`,
      'Shop',
    ]);
  });

  it('refuses a URL the sign-up refuses, with the error summary, the field’s message and what was typed (422)', async () => {
    const { cookie, email } = await confirmedAccount();
    const refused = await addSite(cookie, {
      url: 'http://localhost:3000/health',
      name: 'My <b>app</b>',
    });
    expect(refused.statusCode).toBe(422);
    const summary = hook(refused.body, 'error-summary');
    expect(summary).toContain('There is a problem');
    expect(summary).toContain('localhost cannot be reached from the internet');
    expect(refused.body).toMatch(
      /<div class="error-summary"[^>]*tabindex="-1" autofocus data-testid="error-summary">/,
    );
    expect(refused.body).toContain('<a href="#url">');
    expect(refused.body).toContain('id="url-error"');
    expect(refused.body).toMatch(
      /<input[^>]*id="url"[^>]*value="http:\/\/localhost:3000\/health" aria-describedby="url-hint url-error" aria-invalid="true">/,
    );
    // The name typed is kept, escaped.
    expect(refused.body).toContain('value="My &#60;b&#62;app&#60;/b&#62;"');
    expect(refused.body).toMatch(/<title>Error: Add a site/);
    expect(await sitesOf(email)).toHaveLength(1);
  });

  it('refuses a name that leads inside a private network, in plain words, at once', async () => {
    const { cookie, email } = await confirmedAccount();
    const refused = await addSite(cookie, { url: 'https://inside.test/' });
    expect(refused.statusCode).toBe(422);
    expect(hook(refused.body, 'error-summary')).toContain(
      'inside.test leads to 10.0.0.5, an address inside a private network, which we do not check',
    );
    expect(await sitesOf(email)).toHaveLength(1);
  });

  it('refuses an interval that is not offered, and a name over 100 characters', async () => {
    const { cookie } = await confirmedAccount();
    const refused = await addSite(cookie, {
      url: site.url(nextSite()),
      name: 'n'.repeat(101),
      interval: '1',
    });
    expect(refused.statusCode).toBe(422);
    const items = hooks(refused.body, 'error-summary')[0] ?? '';
    expect(items).toContain('Enter a name of 100 characters or fewer');
    expect(items).toContain('Choose how often to check it');
  });

  it(`stops at SITES_PER_ACCOUNT (${LIMIT} here), with a message`, async () => {
    const { cookie, email } = await confirmedAccount();
    for (let count = 1; count < LIMIT; count += 1) {
      expect(
        (await addSite(cookie, { url: site.url(nextSite()) })).statusCode,
      ).toBe(303);
    }
    const over = await addSite(cookie, { url: site.url(nextSite()) });
    expect(over.statusCode).toBe(422);
    expect(hook(over.body, 'error-summary')).toContain(
      `an account can watch ${LIMIT} sites`,
    );
    expect(await sitesOf(email)).toHaveLength(LIMIT);
  });

  it('is refused, and offered not, while the address is unconfirmed (ADR-0120)', async () => {
    const { cookie, email } = await signUpAndSignIn(app, {
      url: site.url(nextSite()),
    });
    const form = await get('/sites/new', cookie);
    expect(hook(form.body, 'confirm-first')).toContain(
      'Confirm your email address first',
    );
    const refused = await addSite(cookie, { url: site.url(nextSite()) });
    expect(refused.statusCode).toBe(403);
    expect(await sitesOf(email)).toHaveLength(1);
  });

  it('is refused from another site’s page, and without a session', async () => {
    const { cookie, email } = await confirmedAccount();
    const crossSite = await postForm(
      app,
      '/sites',
      { url: site.url(nextSite()), name: '', interval: '60' },
      { cookie, 'sec-fetch-site': 'cross-site' },
    );
    expect(crossSite.statusCode).toBe(403);
    const signedOut = await postForm(app, '/sites', {
      url: site.url(nextSite()),
      name: '',
      interval: '60',
    });
    expect(signedOut.statusCode).toBe(303);
    expect(signedOut.headers.location).toBe('/');
    expect(await sitesOf(email)).toHaveLength(1);
  });
});

describe('editing a site', () => {
  it('a new URL starts it afresh: pending, checked at once, its incident ended with no mail; its past checks stay', async () => {
    const n = nextSite();
    const { cookie, email } = await confirmedAccount(site.url(n));
    await checkedThenDown(n);
    const [down] = await sitesOf(email);
    expect(down?.state).toBe('down');
    const id = down?.id ?? '';
    const form = await get(`/sites/${id}/edit`, cookie);
    expect(form.body).toContain(`value="${site.url(n)}"`);

    const moved = nextSite();
    const saved = await post(`/sites/${id}`, cookie, {
      url: site.url(moved),
      name: 'Moved',
      interval: '60',
    });
    expect(saved.statusCode).toBe(303);
    expect(saved.headers.location).toBe(`/sites/${id}?done=saved`);
    const [row] = await sitesOf(email);
    expect(row).toMatchObject({ state: 'pending', name: 'Moved' });
    const incidents = await app.database.db
      .selectFrom('monitor_incidents')
      .select('ended_at')
      .where('monitor_id', '=', id)
      .execute();
    expect(incidents.map((incident) => incident.ended_at)).not.toContain(null);
    // The "down" was queued; no "back up" is.
    expect(await alertKindsOf(id)).toEqual(['down']);
    const checks = await app.database.db
      .selectFrom('monitor_checks')
      .select('up')
      .where('monitor_id', '=', id)
      .execute();
    expect(checks).toHaveLength(3);
    await runDue();
    expect(site.hits(moved)).toBe(1);
    expect((await sitesOf(email))[0]?.state).toBe('up');
  });

  it('a new name or interval keeps the state', async () => {
    const n = nextSite();
    const { cookie, email } = await confirmedAccount(site.url(n));
    await runDue();
    const [before] = await sitesOf(email);
    const saved = await post(`/sites/${before?.id}`, cookie, {
      url: site.url(n),
      name: 'Renamed',
      interval: '120',
    });
    expect(saved.statusCode).toBe(303);
    const [after] = await sitesOf(email);
    expect(after).toMatchObject({
      state: 'up',
      name: 'Renamed',
      interval_factor: 2,
    });
    expect(after?.next_check_at?.getTime()).toBe(
      before?.next_check_at?.getTime(),
    );
  });

  it('a refused edit changes nothing and keeps what was typed', async () => {
    const n = nextSite();
    const { cookie, email } = await confirmedAccount(site.url(n));
    const [before] = await sitesOf(email);
    const refused = await post(`/sites/${before?.id}`, cookie, {
      url: 'ftp://files.example',
      name: 'Kept',
      interval: '60',
    });
    expect(refused.statusCode).toBe(422);
    expect(refused.body).toContain('value="ftp://files.example"');
    expect(refused.body).toContain('value="Kept"');
    expect((await sitesOf(email))[0]?.site_url).toBe(site.url(n));
  });
});

describe('pausing and resuming', () => {
  it('a paused site is not checked and sends nothing; pausing ends its incident with no mail; resuming checks it at once', async () => {
    const n = nextSite();
    const { cookie, email } = await confirmedAccount(site.url(n));
    await checkedThenDown(n);
    const [down] = await sitesOf(email);
    expect(down?.state).toBe('down');
    const id = down?.id ?? '';
    const before = await get(`/sites/${id}`, cookie);
    expect(before.body).toContain('data-testid="pause-site"');

    const paused = await post(`/sites/${id}/pause`, cookie);
    expect(paused.statusCode).toBe(303);
    expect(paused.headers.location).toBe(`/sites/${id}?done=paused`);
    const page = await get(`/sites/${id}`, cookie);
    expect(hook(page.body, 'site-paused')).toMatch(/^Paused since .+ UTC on /);
    expect(hook(page.body, 'monitor-state')).toBe('Paused');
    expect(page.body).toContain('data-testid="resume-site"');
    const open = await app.database.db
      .selectFrom('monitor_incidents')
      .select('id')
      .where('monitor_id', '=', id)
      .where('ended_at', 'is', null)
      .execute();
    expect(open).toEqual([]);

    site.set(n, 'up');
    const hits = site.hits(n);
    for (let interval = 0; interval < 3; interval += 1) {
      clock.advance(TEST_INTERVAL_MS);
      await runDue();
    }
    expect(site.hits(n)).toBe(hits);
    // No "back up" for the incident the pause ended.
    expect(await alertKindsOf(id)).toEqual(['down']);

    const resumed = await post(`/sites/${id}/resume`, cookie);
    expect(resumed.statusCode).toBe(303);
    expect((await sitesOf(email))[0]).toMatchObject({
      state: 'pending',
      paused_at: null,
    });
    await runDue();
    expect(site.hits(n)).toBe(hits + 1);
    expect((await sitesOf(email))[0]?.state).toBe('up');
  });
});

describe('removing a site', () => {
  it('asks first, then deletes the site, its history and its alerts not yet sent', async () => {
    const n = nextSite();
    const { cookie, email } = await confirmedAccount(site.url(n));
    await checkedThenDown(n);
    const [row] = await sitesOf(email);
    const id = row?.id ?? '';
    const page = await get(`/sites/${id}`, cookie);
    expect(page.body).toMatch(
      new RegExp(
        `<form method="get" action="/sites/${id}/remove" data-testid="remove-site">`,
      ),
    );
    const confirmStep = await get(`/sites/${id}/remove`, cookie);
    expect(confirmStep.statusCode).toBe(200);
    expect(confirmStep.body).toContain(
      `<form method="post" action="/sites/${id}/remove" class="form" data-testid="confirm-remove">`,
    );
    // The step itself removes nothing.
    expect(await sitesOf(email)).toHaveLength(1);

    const removed = await post(`/sites/${id}/remove`, cookie);
    expect(removed.statusCode).toBe(303);
    expect(removed.headers.location).toBe('/?removed=1');
    expect(await sitesOf(email)).toEqual([]);
    const { db } = app.database;
    for (const table of ['monitor_checks', 'monitor_incidents'] as const) {
      const left = await db
        .selectFrom(table)
        .select('monitor_id')
        .where('monitor_id', '=', id)
        .execute();
      expect(left, table).toEqual([]);
    }
    expect(await alertKindsOf(id)).toEqual([]);
    const list = await get('/?removed=1', cookie);
    expect(hook(list.body, 'site-removed')).toMatch(/removed/);
    expect(hook(list.body, 'no-sites')).toBeDefined();
  });
});

describe('another account’s site does not exist', () => {
  it('answers 404 to every page and action on it, and changes nothing', async () => {
    const n = nextSite();
    const owner = await confirmedAccount(site.url(n));
    const [row] = await sitesOf(owner.email);
    const id = row?.id ?? '';
    const other = await confirmedAccount();
    for (const path of [
      `/sites/${id}`,
      `/sites/${id}/edit`,
      `/sites/${id}/remove`,
    ]) {
      expect((await get(path, other.cookie)).statusCode, path).toBe(404);
    }
    for (const path of [
      `/sites/${id}/pause`,
      `/sites/${id}/resume`,
      `/sites/${id}/remove`,
      `/sites/${id}/check-now`,
      `/sites/${id}/alerts/resume`,
    ]) {
      expect((await post(path, other.cookie)).statusCode, path).toBe(404);
    }
    const edited = await post(`/sites/${id}`, other.cookie, {
      url: site.url(nextSite()),
      name: 'Taken',
      interval: '60',
    });
    expect(edited.statusCode).toBe(404);
    expect(await sitesOf(owner.email)).toEqual([row]);
    expect(site.hits(n)).toBe(0);
    // Nor does a site id that is no number.
    expect((await get('/sites/1e3', other.cookie)).statusCode).toBe(404);
    expect((await get('/sites/-1', other.cookie)).statusCode).toBe(404);
  });
});

describe('a site’s page', () => {
  it('shows its uptime per day over 90 days, with its text, and its incidents newest first, a page at a time', async () => {
    const n = nextSite();
    const { cookie, email } = await confirmedAccount(site.url(n));
    const [row] = await sitesOf(email);
    const id = row?.id ?? '';
    const now = clock.now();
    const day = 86_400_000;
    // Two days rolled up: one all up, one with failures; and 25 incidents.
    await app.database.db
      .insertInto('monitor_hours')
      .values([
        {
          monitor_id: id,
          hour: new Date(now.getTime() - 2 * day),
          checks: 60,
          up: 60,
          median_ms: 10,
          slowest_ms: 20,
        },
        {
          monitor_id: id,
          hour: new Date(now.getTime() - day),
          checks: 60,
          up: 54,
          median_ms: 10,
          slowest_ms: 20,
        },
      ])
      .execute();
    await app.database.db
      .insertInto('monitor_incidents')
      .values(
        Array.from({ length: 25 }, (_, index) => ({
          monitor_id: id,
          started_at: new Date(now.getTime() - (index + 2) * 3_600_000),
          ended_at: new Date(now.getTime() - (index + 2) * 3_600_000 + 600_000),
          reason: { code: 'status' as const, status: 500 + (index % 4) },
        })),
      )
      .execute();

    const page = await get(`/sites/${id}`, cookie);
    expect(page.statusCode).toBe(200);
    expect(hook(page.body, 'site-uptime')).toMatch(
      /^Last 90 days: up 95 % of 120 checks, over 2 days with checks; 1 day with failed checks\./,
    );
    expect(page.body).toMatch(
      /<svg class="days__chart"[^>]*role="img" aria-labelledby="days-summary"/,
    );
    const incidents = hooks(page.body, 'incident');
    expect(incidents).toHaveLength(20);
    // Newest first: the one that started two hours ago.
    expect(incidents[0]).toMatch(
      /\(10 minutes\): HTTP 500 Internal Server Error\.$/,
    );
    expect(page.body).toContain(
      `href="/sites/${id}?page=2#incidents">Older incidents</a>`,
    );
    const older = await get(`/sites/${id}?page=2`, cookie);
    expect(hooks(older.body, 'incident')).toHaveLength(5);
    expect(older.body).toContain(
      `href="/sites/${id}?page=1#incidents">Newer incidents</a>`,
    );
    expect(older.body).not.toContain('Older incidents');
  });
});
