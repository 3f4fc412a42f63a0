/**
 * Alert channels (issue 60), judged from the outside on the service: the
 * channels added, refused, limited, narrowed, shown masked, tested and
 * removed from `/` and their pages; an added address confirmed by its
 * confirmation link and unsubscribed by the one-click link its alerts carry; a
 * site going down reaching a webhook (its signature verified with
 * `standardwebhooks`' own `verify`) and a confirmed address, and not an
 * unconfirmed one. Forms are posted as a browser posts them (same origin,
 * form-encoded); webhook receivers and sites are on 127.0.0.1 under names
 * the test's table resolves (never DNS), every connection passes the
 * loopback tripwire, mail goes to the test's SMTP sink, and the monitor
 * runs on the test's clock.
 */
import type {
  IncomingHttpHeaders,
  IncomingMessage,
  ServerResponse,
} from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { ParsedMail } from 'mailparser';
import { sql } from 'kysely';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  startLocalSite,
  type LocalSite,
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
  testResolver,
  type Tripwire,
} from '../../../harness/monitor/tripwire';
import {
  channelsRepository,
  CONFIRM_MAILS_PER_DAY,
} from '../../../server/alerts/channels';
import { escapeHtml } from '../../../server/http/html';
import { accountPages, hooks } from '../support/accountPages';
import { FORM } from '../support/apiServer';
import {
  hook,
  linkOf,
  postForm,
  signUpAndSignIn,
  startMailService,
  tokenOf,
  type MailService,
} from '../support/mailService';

/** A request a webhook receiver saw. */
interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

let site: SwitchableSite;
let receiver: LocalSite;
const received: Received[] = [];
let tripwire: Tripwire;
let clock: TestClock;
let service: MailService;
let app: FastifyInstance;
let made = 0;

/** A receiver route that records the request and answers `status`. */
function receiving(status: number) {
  return (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({
        path: new URL(request.url ?? '/', 'http://hook.test').pathname,
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      response.writeHead(status, { 'content-type': 'text/plain' });
      response.end(status === 204 ? undefined : `status ${status}\n`);
    });
  };
}

beforeAll(async () => {
  site = await startSwitchableSite();
  receiver = await startLocalSite({
    '/ok': receiving(204),
    '/alerts': receiving(200),
    '/fail': receiving(500),
  });
  clock = testClock();
  tripwire = loopbackTripwire();
  service = await startMailService({
    monitor: testMonitorOptions(clock, tripwire, {
      resolve: testResolver({
        'site.test': ['127.0.0.1'],
        'hook.test': ['127.0.0.1'],
        // A name that leads inside a private network.
        'inside.test': ['10.0.0.1'],
      }).resolve,
    }),
    sites: { perAccount: 20, intervalMs: TEST_INTERVAL_MS },
  });
  app = service.app;
});

afterAll(async () => {
  await service.close();
  await receiver.close();
  await site.close();
});

afterEach(() => {
  // No test may have tried to leave loopback.
  expect(tripwire.violations).toEqual([]);
});

/** A number no other test uses (sites, addresses). */
function next(): number {
  made += 1;
  return made;
}

/** An address no other test uses, besides the accounts'. */
function friend(): string {
  return `friend.${process.pid}.${next()}@example.com`;
}

/**
 * A webhook URL of the receiver, under `hook.test`, with a query of its
 * own (a receiver's token, as real webhook URLs carry one).
 */
function hookUrl(path: '/ok' | '/alerts' | '/fail'): string {
  return receiver.url(`${path}?token=secret${next()}`, 'hook.test');
}

const pages = accountPages(() => app);
const { get, post } = pages;

/** Adds a channel by the form; returns the answer. */
function addChannel(
  cookie: string,
  kind: string,
  target: string,
  more: [string, string][] = [['sites', 'all']],
) {
  return post('/channels', cookie, [
    ['kind', kind],
    ['target', target],
    ...more,
  ]);
}

/** Adds a channel that the form accepts; returns its id. */
async function added(
  cookie: string,
  kind: string,
  target: string,
  more?: [string, string][],
): Promise<string> {
  const answer = await addChannel(cookie, kind, target, more);
  expect(answer.statusCode, answer.body).toBe(303);
  const id = /^\/channels\/(\d+)$/.exec(String(answer.headers.location))?.[1];
  expect(id).toBeDefined();
  return id ?? '';
}

/** An account with its address confirmed, signed in, watching site `n`. */
async function confirmedAccount(n = next()) {
  return { ...(await pages.confirmedAccount(site.url(n))), n };
}

/** A channel's row, by id. */
async function channelRow(id: string) {
  return app.database.db
    .selectFrom('alert_channels')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The ids of an account's sites, oldest first. */
async function siteIdsOf(email: string): Promise<string[]> {
  const rows = await app.database.db
    .selectFrom('monitors')
    .innerJoin('accounts', 'accounts.id', 'monitors.account_id')
    .select('monitors.id')
    .where(sql`lower(accounts.email)`, '=', email.toLowerCase())
    .orderBy('monitors.id')
    .execute();
  return rows.map((row) => String(row.id));
}

/** The body of a request, verified by the Standard Webhooks scheme. */
function verified(request: Received, secret: string): Record<string, unknown> {
  const header = (name: string) => {
    const value = request.headers[name];
    return typeof value === 'string' ? value : '';
  };
  return new Webhook(secret).verify(request.body, {
    'webhook-id': header('webhook-id'),
    'webhook-timestamp': header('webhook-timestamp'),
    'webhook-signature': header('webhook-signature'),
  }) as Record<string, unknown>;
}

/** A raw header line of a mail (mailparser reads List-* into its own shape). */
function headerLine(mail: ParsedMail | undefined, key: string): string {
  return (mail?.headerLines.find((line) => line.key === key)?.line ?? '')
    .replace(/\r?\n[ \t]+/g, ' ')
    .replace(/^[^:]+:\s*/, '');
}

describe('adding channels', () => {
  it('adds each kind from / : the form, 303 to its page, its row, and its row on / with its target masked', async () => {
    const { cookie } = await confirmedAccount();
    const home = await get('/', cookie);
    expect(home.body).toMatch(
      /<a [^>]*href="\/channels\/new"[^>]*data-testid="add-channel"/,
    );
    expect(hook(home.body, 'alerts-owner')).toMatch(/gets every alert/);
    expect(hooks(home.body, 'channel')).toEqual([]);

    const form = await get('/channels/new', cookie);
    expect(form.statusCode).toBe(200);
    expect(form.body).toMatch(
      /<form method="post" action="\/channels"[^>]*data-testid="channel-form"/,
    );
    expect(
      [...form.body.matchAll(/<option value="(\w+)"/g)].map((m) => m[1]),
    ).toEqual(['email', 'webhook', 'slack', 'discord', 'ntfy']);
    expect(form.body).toContain(
      '<select class="field__input" id="kind" name="kind"',
    );
    expect(form.body).toMatch(/<input [^>]*name="target"/);
    expect(form.body).toContain('value="all" checked');

    const address = friend();
    const targets = {
      email: address,
      webhook: hookUrl('/ok'),
      slack: 'https://hooks.slack.com/services/T000/B000/XXXXSECRET',
      discord: 'https://discord.com/api/webhooks/123/SECRET-token',
      ntfy: 'https://ntfy.sh/a-secret-topic',
    };
    const ids: string[] = [];
    for (const [kind, target] of Object.entries(targets)) {
      ids.push(await added(cookie, kind, target));
    }
    const rows = await Promise.all(ids.map(channelRow));
    expect(rows.map((row) => row?.kind)).toEqual(Object.keys(targets));
    expect(rows.map((row) => row?.target)).toEqual(Object.values(targets));
    // Only the address waits for its confirmation.
    expect(rows.map((row) => row?.confirmed_at !== null)).toEqual([
      false,
      true,
      true,
      true,
      true,
    ]);
    expect(rows.map((row) => row?.all_sites)).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(rows[1]?.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(rows.filter((row) => row?.secret !== null)).toHaveLength(1);
    for (const row of rows) {
      expect(row?.unsubscribe_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    }

    const page = await get('/', cookie);
    expect(hooks(page.body, 'channel')).toHaveLength(5);
    expect(hooks(page.body, 'channel-kind')).toEqual([
      'Email',
      'Webhook',
      'Slack',
      'Discord',
      'ntfy',
    ]);
    expect(hooks(page.body, 'channel-state')).toEqual([
      'Waiting for confirmation',
      'Working',
      'Working',
      'Working',
      'Working',
    ]);
    expect(hooks(page.body, 'channel-target')).toEqual([
      `f•••@example.com`,
      `http://hook.test:${receiver.port}/…`,
      'https://hooks.slack.com/…',
      'https://discord.com/…',
      'https://ntfy.sh/…',
    ]);
    ids.forEach((id) =>
      expect(page.body).toContain(
        `<a href="/channels/${id}" data-testid="channel-link"`,
      ),
    );
    // The sites' section comes first, then where the alerts go.
    expect(page.body.indexOf('data-testid="add-site"')).toBeLessThan(
      page.body.indexOf('data-testid="add-channel"'),
    );
    // No target appears whole, on / or on its page.
    for (const [index, target] of Object.values(targets).entries()) {
      const channelPage = await get(`/channels/${ids[index]}`, cookie);
      expect(channelPage.statusCode).toBe(200);
      for (const body of [page.body, channelPage.body]) {
        expect(body).not.toContain(target);
        expect(body).not.toContain(escapeHtml(target));
      }
      expect(hook(channelPage.body, 'channel-target')).toBe(
        hooks(page.body, 'channel-target')[index],
      );
    }
  });

  it('refuses what it cannot send to: 422 with the error summary, each field’s message and what was typed, and adds nothing', async () => {
    const { cookie, email } = await confirmedAccount();
    const refusals: [string, string, RegExp][] = [
      ['email', 'not-an-address', /correct format, like name@example\.com/],
      ['email', email.toUpperCase(), /yours gets every alert already/],
      ['email', '', /Enter the email address/],
      [
        'slack',
        'https://hooks.example.com/services/T000/B000/XXXX',
        /starts with https:\/\/hooks\.slack\.com\//,
      ],
      [
        'slack',
        'http://hooks.slack.com/services/T000/B000/XXXX',
        /starts with https:\/\/hooks\.slack\.com\//,
      ],
      [
        'discord',
        'https://discord.com/channels/123/456',
        /starts with https:\/\/discord\.com\/api\/webhooks\//,
      ],
      ['webhook', 'ftp://hook.test/in', /starts with https:\/\/ or http:\/\//],
      ['ntfy', 'ntfy.sh/topic', /starts with https:\/\/ or http:\/\//],
      [
        'webhook',
        'http://user:secret@hook.test/in',
        /without a user name or password/,
      ],
      [
        'webhook',
        `https://hook.test/${'x'.repeat(2_048)}`,
        /2,048 characters or fewer/,
      ],
      [
        'webhook',
        'http://inside.test/in?key=1',
        /Enter a URL on the public internet: inside\.test leads to an address inside a private network, where we send no alerts/,
      ],
      ['pager', 'https://hook.test/in', /Choose where the alerts go/],
    ];
    for (const [kind, target, message] of refusals) {
      const answer = await addChannel(cookie, kind, target);
      expect(answer.statusCode, `${kind} ${target}`).toBe(422);
      expect(answer.body).toMatch(
        /<div class="error-summary" role="alert"[^>]*autofocus data-testid="error-summary">/,
      );
      expect(hook(answer.body, 'error-summary')).toMatch(message);
      // The field's own message, linked from the summary, and what was typed.
      const field = kind === 'pager' ? 'kind' : 'target';
      expect(answer.body).toContain(`<a href="#${field}">`);
      expect(answer.body).toContain(`id="${field}-error"`);
      expect(answer.body).toContain(`value="${escapeHtml(target)}"`);
    }
    // The choice of sites, with no site ticked.
    const narrowed = await addChannel(cookie, 'webhook', hookUrl('/ok'), [
      ['sites', 'chosen'],
    ]);
    expect(narrowed.statusCode).toBe(422);
    expect(hook(narrowed.body, 'error-summary')).toMatch(
      /Choose the sites this channel alerts for/,
    );
    expect(narrowed.body).toContain('value="chosen" checked');
    const home = await get('/', cookie);
    expect(hooks(home.body, 'channel')).toEqual([]);
  });

  it('holds an account to 10 channels, of which 5 email addresses', async () => {
    const { cookie } = await confirmedAccount();
    for (let index = 0; index < 5; index += 1) {
      await added(cookie, 'email', friend());
    }
    const sixth = await addChannel(cookie, 'email', friend());
    expect(sixth.statusCode).toBe(422);
    expect(hook(sixth.body, 'error-summary')).toMatch(
      /Remove an email address before you add another: an account can have 5/,
    );
    for (let index = 0; index < 5; index += 1) {
      await added(cookie, 'webhook', hookUrl('/ok'));
    }
    const eleventh = await addChannel(cookie, 'ntfy', 'https://ntfy.sh/more');
    expect(eleventh.statusCode).toBe(422);
    expect(hook(eleventh.body, 'error-summary')).toMatch(
      /Remove a channel before you add another: an account can have 10/,
    );
    const form = await get('/channels/new', cookie);
    expect(hook(form.body, 'error-summary')).toMatch(/an account can have 10/);
    expect(hooks((await get('/', cookie)).body, 'channel')).toHaveLength(10);
  });

  it('refuses the same channel twice', async () => {
    const { cookie } = await confirmedAccount();
    const address = friend();
    await added(cookie, 'email', address);
    const again = await addChannel(cookie, 'email', address.toUpperCase());
    expect(again.statusCode).toBe(422);
    expect(hook(again.body, 'error-summary')).toMatch(/added already/);
  });

  it('narrows a channel to the sites ticked, the account’s own only', async () => {
    const { cookie, email } = await confirmedAccount();
    const other = await confirmedAccount();
    const [own] = await siteIdsOf(email);
    const [theirs] = await siteIdsOf(other.email);
    const form = await get('/channels/new', cookie);
    expect(form.body).toContain(`name="site" value="${own}"`);
    expect(form.body).not.toContain(`name="site" value="${theirs}"`);
    const id = await added(cookie, 'webhook', hookUrl('/ok'), [
      ['sites', 'chosen'],
      ['site', own ?? ''],
      ['site', theirs ?? ''],
    ]);
    expect((await channelRow(id))?.all_sites).toBe(false);
    const narrowed = await app.database.db
      .selectFrom('alert_channel_sites')
      .select('monitor_id')
      .where('channel_id', '=', id)
      .execute();
    expect(narrowed.map((row) => String(row.monitor_id))).toEqual([own]);
    const page = await get(`/channels/${id}`, cookie);
    expect(hook(page.body, 'channel-sites')).toBe(
      `site.test:${site.site.port}`,
    );
    expect(hooks((await get('/', cookie)).body, 'channel')[0]).toMatch(
      /Alerts for 1 site\./,
    );
  });

  it('asks for a session, and for a confirmed address before any channel', async () => {
    const anonymous = await app.inject({ method: 'GET', url: '/channels/new' });
    expect(anonymous.statusCode).toBe(303);
    expect(anonymous.headers.location).toBe('/');
    const posted = await postForm(app, '/channels', {
      kind: 'ntfy',
      target: 'https://ntfy.sh/topic',
      sites: 'all',
    });
    expect(posted.statusCode).toBe(303);
    expect(posted.headers.location).toBe('/');

    const { cookie } = await signUpAndSignIn(app, { url: site.url(next()) });
    const form = await get('/channels/new', cookie);
    expect(hook(form.body, 'confirm-first')).toBeDefined();
    const refused = await addChannel(cookie, 'ntfy', 'https://ntfy.sh/topic');
    expect(refused.statusCode).toBe(403);
    expect(hooks((await get('/', cookie)).body, 'channel')).toEqual([]);
  });
});

/** The sites a channel is narrowed to, by id. */
async function narrowedSites(channelId: string): Promise<string[]> {
  const rows = await app.database.db
    .selectFrom('alert_channel_sites')
    .select('monitor_id')
    .where('channel_id', '=', channelId)
    .orderBy('monitor_id')
    .execute();
  return rows.map((row) => String(row.monitor_id));
}

/** Adds a site named `name` to the account by the sites' form. */
async function addedSite(cookie: string, name: string): Promise<void> {
  const answer = await post('/sites', cookie, [
    ['url', site.url(next())],
    ['name', name],
    ['interval', String(TEST_INTERVAL_MS / 1000)],
  ]);
  expect(answer.statusCode, answer.body).toBe(303);
}

/** An account with its address confirmed, signed in, its site removed. */
async function siteLessAccount() {
  const account = await confirmedAccount();
  await app.database.db
    .deleteFrom('monitors')
    .where('id', 'in', await siteIdsOf(account.email))
    .execute();
  return account;
}

/**
 * An account with its sign-up's site (`first`) and a site named Shop, and
 * the site of another account (`theirs`).
 */
async function twoSitesAndAnother() {
  const { cookie, email } = await confirmedAccount();
  await addedSite(cookie, 'Shop');
  const [first, shop] = await siteIdsOf(email);
  const other = await confirmedAccount();
  const [theirs] = await siteIdsOf(other.email);
  return { cookie, first, shop, theirs };
}

describe('changing a channel’s sites', () => {
  it('narrows a channel from its page, widens it again, and keeps its kind and target', async () => {
    const { cookie, first, shop, theirs } = await twoSitesAndAnother();
    const target = hookUrl('/ok');
    const id = await added(cookie, 'webhook', target);

    const page = await get(`/channels/${id}`, cookie);
    expect(page.body).toMatch(
      new RegExp(
        `<form method="post" action="/channels/${id}/sites" class="form" data-testid="edit-channel" novalidate>`,
      ),
    );
    const form = /data-testid="edit-channel"[\s\S]*?<\/form>/.exec(
      page.body,
    )?.[0];
    expect(form).toContain('name="sites" value="all" checked');
    expect(form).toContain(`name="site" value="${first}">`);
    expect(form).toContain(`name="site" value="${shop}">`);
    expect(form).not.toContain(`value="${theirs}"`);

    // Another account's site is ignored; kind and target are not fields.
    const narrowed = await post(`/channels/${id}/sites`, cookie, [
      ['sites', 'chosen'],
      ['site', shop ?? ''],
      ['site', theirs ?? ''],
      ['kind', 'ntfy'],
      ['target', 'https://ntfy.sh/else'],
    ]);
    expect(narrowed.statusCode).toBe(303);
    expect(narrowed.headers.location).toBe(`/channels/${id}?done=saved`);
    expect(await narrowedSites(id)).toEqual([shop]);
    const row = await channelRow(id);
    expect(row).toMatchObject({ all_sites: false, kind: 'webhook', target });
    const saved = await get(`/channels/${id}?done=saved`, cookie);
    expect(hook(saved.body, 'channel-note')).toBe(
      'The sites it alerts for are saved.',
    );
    expect(hook(saved.body, 'channel-sites')).toBe('Shop');
    expect(saved.body).toContain('name="sites" value="chosen" checked');
    expect(saved.body).toContain(`name="site" value="${shop}" checked`);
    expect(saved.body).toContain(`name="site" value="${first}">`);
    expect(hooks((await get('/', cookie)).body, 'channel')[0]).toMatch(
      /Alerts for 1 site\./,
    );

    // Another choice replaces the list.
    await post(`/channels/${id}/sites`, cookie, [
      ['sites', 'chosen'],
      ['site', first ?? ''],
      ['site', shop ?? ''],
    ]);
    expect(await narrowedSites(id)).toEqual([first, shop]);
    await post(`/channels/${id}/sites`, cookie, [
      ['sites', 'chosen'],
      ['site', first ?? ''],
    ]);
    expect(await narrowedSites(id)).toEqual([first]);

    // Every site again: the list is emptied.
    const widened = await post(`/channels/${id}/sites`, cookie, [
      ['sites', 'all'],
      ['site', shop ?? ''],
    ]);
    expect(widened.headers.location).toBe(`/channels/${id}?done=saved`);
    expect((await channelRow(id))?.all_sites).toBe(true);
    expect(await narrowedSites(id)).toEqual([]);
    expect(hooks((await get('/', cookie)).body, 'channel')[0]).toMatch(
      /Alerts for every site\./,
    );
  });

  it('refuses no site chosen: 422, the page again with the error summary and what was chosen, nothing changed, the secret not spent', async () => {
    const { cookie, first, shop, theirs } = await twoSitesAndAnother();
    // Never viewed: its secret is still to be shown.
    const id = await added(cookie, 'webhook', hookUrl('/ok'), [
      ['sites', 'chosen'],
      ['site', shop ?? ''],
    ]);
    for (const fields of [
      [['sites', 'chosen']],
      [
        ['sites', 'chosen'],
        ['site', theirs ?? ''],
      ],
    ] as [string, string][][]) {
      const refused = await post(`/channels/${id}/sites`, cookie, fields);
      expect(refused.statusCode).toBe(422);
      expect(refused.body).toContain(
        '<title>Error: Webhook channel – Vigil</title>',
      );
      expect(refused.body).toMatch(
        /<div class="error-summary" role="alert"[^>]*autofocus data-testid="error-summary">/,
      );
      expect(hook(refused.body, 'error-summary')).toBe(
        'There is a problem Choose the sites this channel alerts for, or choose every site',
      );
      expect(refused.body).toContain('<a href="#sites">');
      expect(refused.body).toContain('id="sites-error"');
      expect(hook(refused.body, 'channel-page')).toBeDefined();
      // What was chosen, not what is saved.
      expect(refused.body).toContain('name="sites" value="chosen" checked');
      expect(refused.body).toContain(`name="site" value="${shop}">`);
      expect(refused.body).toContain(`name="site" value="${first}">`);
      expect(hook(refused.body, 'channel-secret')).toBeUndefined();
    }
    const row = await channelRow(id);
    expect(row?.all_sites).toBe(false);
    expect(row?.secret_shown_at).toBeNull();
    expect(await narrowedSites(id)).toEqual([shop]);
    // Its page still shows the secret, once.
    const page = await get(`/channels/${id}`, cookie);
    expect(hook(page.body, 'channel-secret')).toBe(row?.secret);
  });

  it('refuses a site removed meanwhile, changing nothing', async () => {
    const { cookie, email } = await confirmedAccount();
    const [first] = await siteIdsOf(email);
    const id = await added(cookie, 'ntfy', 'https://ntfy.sh/narrowed');
    const channels = channelsRepository(app.database.db);
    const [accountId] = (
      await sql<{ id: string }>`select id from accounts
        where lower(email) = ${email.toLowerCase()}`.execute(app.database.db)
    ).rows.map((row) => row.id);
    expect(
      await channels.editSites(accountId ?? '', id, {
        allSites: false,
        siteIds: [first ?? '', '999999999'],
      }),
    ).toBe('sites');
    expect((await channelRow(id))?.all_sites).toBe(true);
    expect(await narrowedSites(id)).toEqual([]);
    expect(
      await channels.editSites(accountId ?? '', id, {
        allSites: false,
        siteIds: [first ?? ''],
      }),
    ).toBe(true);
    expect(await narrowedSites(id)).toEqual([first]);
  });

  it('is refused from another site’s page, and without a session', async () => {
    const { cookie } = await confirmedAccount();
    const id = await added(cookie, 'ntfy', 'https://ntfy.sh/kept');
    const crossSite = await postForm(
      app,
      `/channels/${id}/sites`,
      { sites: 'chosen', site: '1' },
      { cookie, 'sec-fetch-site': 'cross-site' },
    );
    expect(crossSite.statusCode).toBe(403);
    const signedOut = await postForm(app, `/channels/${id}/sites`, {
      sites: 'chosen',
    });
    expect(signedOut.statusCode).toBe(303);
    expect(signedOut.headers.location).toBe('/');
    expect((await channelRow(id))?.all_sites).toBe(true);
  });

  it('offers no choice to an account without a site while the channel alerts for every site', async () => {
    const { cookie } = await siteLessAccount();
    const id = await added(cookie, 'ntfy', 'https://ntfy.sh/no-sites');
    const page = await get(`/channels/${id}`, cookie);
    expect(page.body).not.toContain('data-testid="edit-channel"');
  });
});

describe('a channel’s state', () => {
  it('says in words whether it works, fails since when and why, or is off', async () => {
    const { cookie } = await confirmedAccount();
    const failing = await added(cookie, 'webhook', hookUrl('/ok'));
    const gone = await added(
      cookie,
      'discord',
      'https://discord.com/api/webhooks/9/gone',
    );
    await sql`update alert_channels
                 set failing_since = '2026-12-05T14:03:00Z',
                     last_error = 'it answered HTTP 500'
               where id = ${failing}::bigint`.execute(app.database.db);
    await sql`update alert_channels
                 set failing_since = now(), last_error = 'it answered HTTP 410',
                     disabled_at = now(), disabled_reason = 'gone'
               where id = ${gone}::bigint`.execute(app.database.db);
    // The helpers read the end of its `<time>` element as a space.
    const expected = [
      'Failing since 14:03 UTC on 5 December 2026 : it answered HTTP 500',
      'Off: it answered that it is gone (410)',
    ];
    expect(hooks((await get('/', cookie)).body, 'channel-state')).toEqual(
      expected,
    );
    for (const [index, id] of [failing, gone].entries()) {
      expect(
        hook((await get(`/channels/${id}`, cookie)).body, 'channel-state'),
      ).toBe(expected[index]);
    }
  });
});

describe('a webhook channel', () => {
  it('shows its signing secret once, on the first view of its page', async () => {
    const { cookie } = await confirmedAccount();
    const id = await added(cookie, 'webhook', hookUrl('/ok'));
    const first = await get(`/channels/${id}`, cookie);
    const secret = hook(first.body, 'channel-secret');
    expect(secret).toMatch(/^whsec_/);
    expect(secret).toBe((await channelRow(id))?.secret);
    expect((await channelRow(id))?.secret_shown_at).toBeInstanceOf(Date);
    const second = await get(`/channels/${id}`, cookie);
    expect(second.statusCode).toBe(200);
    expect(hook(second.body, 'channel-secret')).toBeUndefined();
    expect(second.body).not.toContain(secret ?? 'whsec_');
    expect(hook((await get('/', cookie)).body, 'channel')).not.toContain(
      'whsec_',
    );
  });

  it('sends a test alert at once, signed, and shows the answer; a receiver answering 500 shows the error', async () => {
    const { cookie, email, n } = await confirmedAccount();
    const [siteId] = await siteIdsOf(email);
    const id = await added(cookie, 'webhook', hookUrl('/ok'));
    const secret = (await channelRow(id))?.secret ?? '';
    const page = await get(`/channels/${id}`, cookie);
    expect(page.body).toMatch(
      new RegExp(
        `<form method="post" action="/channels/${id}/test"[^>]*data-testid="test-channel"`,
      ),
    );
    expect(hook(page.body, 'channel-test-result')).toBeUndefined();

    const before = received.length;
    const tested = await post(`/channels/${id}/test`, cookie);
    expect(tested.statusCode).toBe(303);
    expect(tested.headers.location).toBe(`/channels/${id}`);
    const sent = received.slice(before);
    expect(sent).toHaveLength(1);
    const [request] = sent;
    expect(request?.path).toBe('/ok');
    expect(request?.headers['webhook-id']).toMatch(/^msg_test-/);
    const body = request ? verified(request, secret) : {};
    expect(body).toEqual({
      type: 'test',
      occurred_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as string,
      site: {
        id: siteId,
        name: `site.test:${site.site.port}`,
        url: site.url(n),
      },
    });
    const shown = await get(`/channels/${id}`, cookie);
    expect(hook(shown.body, 'channel-test-result')).toMatch(
      /Delivered: HTTP 204\.$/,
    );
    expect(hook(shown.body, 'channel-state')).toBe('Working');

    // A second press at once sends nothing more.
    const again = await post(`/channels/${id}/test`, cookie);
    expect(again.headers.location).toBe(`/channels/${id}?test=limited`);
    expect(received.length).toBe(before + 1);

    const failing = await added(cookie, 'webhook', hookUrl('/fail'));
    await post(`/channels/${failing}/test`, cookie);
    const failed = await get(`/channels/${failing}`, cookie);
    expect(hook(failed.body, 'channel-test-result')).toMatch(
      /Not delivered: it answered HTTP 500\.$/,
    );
  });

  it('sends an account without a site a test without `site`', async () => {
    const { cookie } = await siteLessAccount();
    const id = await added(cookie, 'webhook', hookUrl('/ok'));
    const secret = (await channelRow(id))?.secret ?? '';
    const before = received.length;
    await post(`/channels/${id}/test`, cookie);
    const [request] = received.slice(before);
    expect(request ? verified(request, secret) : {}).toEqual({
      type: 'test',
      occurred_at: expect.any(String) as string,
    });
  });
});

describe('another account’s channel', () => {
  it('answers 404 to its page and to each action, and changes nothing', async () => {
    const owner = await confirmedAccount();
    const id = await added(owner.cookie, 'webhook', hookUrl('/ok'));
    const { cookie } = await confirmedAccount();
    const before = received.length;
    const page = await get(`/channels/${id}`, cookie);
    expect(page.statusCode).toBe(404);
    expect(hook(page.body, 'channel-not-found')).toBeDefined();
    expect(page.body).not.toContain('whsec_');
    for (const action of ['test', 'remove', 'sites']) {
      const answer = await post(`/channels/${id}/${action}`, cookie);
      expect(answer.statusCode, action).toBe(404);
    }
    // Its sites' form, refused or not: 404, never the page.
    for (const fields of [[['sites', 'chosen']], [['sites', 'all']]] as [
      string,
      string,
    ][][]) {
      const answer = await post(`/channels/${id}/sites`, cookie, fields);
      expect(answer.statusCode).toBe(404);
      expect(hook(answer.body, 'channel-not-found')).toBeDefined();
      expect(answer.body).not.toContain('whsec_');
    }
    for (const path of [
      '/channels/0',
      '/channels/x',
      '/channels/99999999999',
    ]) {
      expect((await get(path, cookie)).statusCode).toBe(404);
    }
    expect(received.length).toBe(before);
    const row = await channelRow(id);
    expect(row?.last_test_at).toBeNull();
    expect(row?.secret_shown_at).toBeNull();
    // Its owner still sees it, secret and all.
    const own = await get(`/channels/${id}`, owner.cookie);
    expect(hook(own.body, 'channel-secret')).toBe(row?.secret);
  });
});

describe('removing a channel', () => {
  it('deletes it and its deliveries not yet sent, and answers 303 to /', async () => {
    const { cookie, email } = await confirmedAccount();
    const id = await added(cookie, 'webhook', hookUrl('/ok'));
    const kept = await added(cookie, 'webhook', hookUrl('/ok'));
    const page = await get(`/channels/${id}`, cookie);
    expect(page.body).toMatch(
      new RegExp(
        `<form method="post" action="/channels/${id}/remove" data-testid="remove-channel"`,
      ),
    );
    const [accountId] = (
      await sql<{ id: string }>`select id from accounts
        where lower(email) = ${email.toLowerCase()}`.execute(app.database.db)
    ).rows.map((row) => row.id);
    // One delivery waiting for its retry, one sent (its record stays), and
    // one to the channel kept.
    for (const [channelId, state] of [
      [id, 'pending'],
      [id, 'sent'],
      [kept, 'pending'],
    ] as const) {
      await sql`insert into deliveries (kind, channel, account_id, channel_id,
                                        target, secret, stream, payload, state,
                                        next_attempt_at, deadline_at, sent_at)
        values ('site.down', 'webhook', ${accountId}::uuid, ${channelId}::bigint,
                'http://hook.test/ok', 'whsec_AAAA', ${`site:0|channel:${channelId}`},
                '{}'::jsonb, ${state}, now() + interval '1 hour',
                now() + interval '1 hour',
                ${state === 'sent' ? sql`now()` : null})`.execute(
        app.database.db,
      );
    }
    const removed = await post(`/channels/${id}/remove`, cookie);
    expect(removed.statusCode).toBe(303);
    expect(removed.headers.location).toBe('/');
    expect(await channelRow(id)).toBeUndefined();
    const left = await app.database.db
      .selectFrom('deliveries')
      .select(['channel_id', 'state'])
      .where('channel_id', 'in', [id, kept])
      .orderBy('id')
      .execute();
    expect(left.map((row) => [String(row.channel_id), row.state])).toEqual([
      [id, 'sent'],
      [kept, 'pending'],
    ]);
    expect((await get(`/channels/${id}`, cookie)).statusCode).toBe(404);
    expect((await post(`/channels/${id}/remove`, cookie)).statusCode).toBe(404);
    expect(hooks((await get('/', cookie)).body, 'channel')).toHaveLength(1);
  });
});

describe('an email channel', () => {
  it('gets a confirmation link first; its GET changes nothing, its POST confirms once', async () => {
    const { cookie } = await confirmedAccount();
    const address = friend();
    const id = await added(cookie, 'email', address);
    const page = await get(`/channels/${id}`, cookie);
    expect(hook(page.body, 'channel-state')).toBe('Waiting for confirmation');
    // Nothing but the confirmation, not even a test.
    const tested = await post(`/channels/${id}/test`, cookie);
    expect(tested.headers.location).toBe(`/channels/${id}?test=unconfirmed`);
    expect(
      hook(
        (await get(`/channels/${id}?test=unconfirmed`, cookie)).body,
        'channel-test-result',
      ),
    ).toMatch(/^Not sent: this address has not confirmed/);

    // No working link waits in the outbox: its token is made as it is
    // sent. The delivery holds none, and the channel has none while its
    // mail waits (read in one statement: the service's worker runs and
    // may be sending it meanwhile).
    const queued = await app.database.db
      .selectFrom('deliveries')
      .select(['secret'])
      .where('channel_id', '=', id)
      .executeTakeFirst();
    expect(queued).toEqual({ secret: null });
    const { rows: tokenWhileWaiting } = await sql<{ id: string }>`
      select deliveries.id from deliveries
        join alert_channels on alert_channels.id = deliveries.channel_id
       where deliveries.channel_id = ${id}::bigint
         and deliveries.state = 'pending'
         and alert_channels.confirm_token_hash is not null`.execute(
      app.database.db,
    );
    expect(tokenWhileWaiting).toEqual([]);

    await service.drain();
    const mails = service.mailsTo(address);
    expect(mails).toHaveLength(1);
    const [mail] = mails;
    expect(mail?.subject).toBe('Confirm this address for Vigil alerts');
    const link = mail ? linkOf(mail) : new URL('https://vigil.example/');
    expect(link.origin + link.pathname).toBe(
      'https://vigil.example/channels/confirm',
    );
    // The account that asks, masked; no name.
    expect(mail?.text).toMatch(/The Vigil account of a•••@example\.com/);
    const token = mail ? tokenOf(mail) : '';
    // Only its hash is kept on the channel; the copy kept drops the token.
    const row = await channelRow(id);
    expect(row?.confirm_token_hash).not.toBeNull();
    expect(JSON.stringify(row)).not.toContain(token);
    const copy = await app.database.db
      .selectFrom('deliveries')
      .select(['kind', 'stream', 'text_body'])
      .where('channel_id', '=', id)
      .executeTakeFirst();
    expect(copy?.kind).toBe('channel.confirm');
    expect(copy?.stream).toBe(`channel:${id}|confirm`);

    // A mail scanner opens the link: nothing changes.
    const opened = await app.inject({
      method: 'GET',
      url: `${link.pathname}${link.search}`,
    });
    expect(opened.statusCode).toBe(200);
    expect(opened.headers['referrer-policy']).toBe('no-referrer');
    expect(hook(opened.body, 'channel-confirm')).toBe('Confirm this address');
    expect((await channelRow(id))?.confirmed_at).toBeNull();

    // Its owner presses the button: no session needed.
    const confirmed = await postForm(app, '/channels/confirm', { token });
    expect(confirmed.statusCode).toBe(200);
    expect(hook(confirmed.body, 'channel-confirmed')).toMatch(/is confirmed/);
    const after = await channelRow(id);
    expect(after?.confirmed_at).toBeInstanceOf(Date);
    expect(after?.confirm_token_hash).toBeNull();
    expect(
      hook((await get(`/channels/${id}`, cookie)).body, 'channel-state'),
    ).toBe('Working');

    // Once only, and a token that is not one confirms nothing.
    const twice = await postForm(app, '/channels/confirm', { token });
    expect(twice.statusCode).toBe(410);
    expect(hook(twice.body, 'channel-confirm-refused')).toBeDefined();
    expect(
      (
        await app.inject({
          method: 'GET',
          url: `${link.pathname}${link.search}`,
        })
      ).statusCode,
    ).toBe(410);
    expect(
      (await postForm(app, '/channels/confirm', { token: 'forged' }))
        .statusCode,
    ).toBe(410);

    // Confirmed, it can be tested: the mail server accepts the test.
    await post(`/channels/${id}/test`, cookie);
    expect(
      hook((await get(`/channels/${id}`, cookie)).body, 'channel-test-result'),
    ).toMatch(/Delivered: the mail server accepted it\.$/);
    await expect
      .poll(() => service.mailsTo(address).map((one) => one.subject))
      .toContain('Test alert from Vigil');
  });

  it('refuses a confirmation link past 24 hours', async () => {
    const { cookie } = await confirmedAccount();
    const address = friend();
    const id = await added(cookie, 'email', address);
    await service.drain();
    const [mail] = service.mailsTo(address);
    const token = mail ? tokenOf(mail) : '';
    await linkMadeAgo(id, '25 hours');
    const page = await get(`/channels/${id}`, cookie);
    expect(page.body).toContain(
      'The link we mailed this address is more than 24 hours old and works no more.',
    );
    const refused = await postForm(app, '/channels/confirm', { token });
    expect(refused.statusCode).toBe(410);
    expect((await channelRow(id))?.confirmed_at).toBeNull();
  });

  it('is mailed for as long as its link works, 24 hours, and not after', async () => {
    const { cookie } = await confirmedAccount();
    const address = friend();
    const id = await added(cookie, 'email', address);
    const [mail] = await confirmationMailsOf(id);
    expect(mail?.hours).toBe(24);
    await service.drain();
    expect(service.mailsTo(address)[0]?.text).toMatch(
      /The link works for 24 hours\./,
    );
  });
});

/** Moves the making of a channel's confirmation link back by `interval`. */
async function linkMadeAgo(channelId: string, interval: string) {
  await sql`update alert_channels
               set confirm_sent_at = now() - ${interval}::interval
             where id = ${channelId}::bigint`.execute(app.database.db);
}

/**
 * A channel's confirmation mails, oldest first: their state and their
 * deadline's hours after their queueing.
 */
async function confirmationMailsOf(channelId: string) {
  const { rows } = await sql<{ state: string; hours: string | number }>`
    select state,
           extract(epoch from deadline_at - created_at) / 3600 as hours
      from deliveries
     where channel_id = ${channelId}::bigint and kind = 'channel.confirm'
     order by id`.execute(app.database.db);
  return rows.map((row) => ({ state: row.state, hours: Number(row.hours) }));
}

/**
 * Presses "Send the link again", which sends nothing for `why`: its
 * redirect says why, and the page it leads to says it in words.
 */
async function resendRefused(
  cookie: string,
  channelId: string,
  why: 'cooldown' | 'limited',
): Promise<string | undefined> {
  const answer = await post(`/channels/${channelId}/resend`, cookie);
  const location = `/channels/${channelId}?resend=${why}`;
  expect(answer.headers.location).toBe(location);
  return hook((await get(location, cookie)).body, 'resend-result');
}

describe('sending the link again', () => {
  it('mails the address a new link: the old one works no more, the new one for 24 hours from now', async () => {
    const { cookie } = await confirmedAccount();
    const address = friend();
    const id = await added(cookie, 'email', address);
    await service.drain();
    const first = tokenOf(service.mailsTo(address)[0] as ParsedMail);
    const page = await get(`/channels/${id}`, cookie);
    expect(page.body).toContain(
      `<form method="post" action="/channels/${id}/resend" class="form" data-testid="resend-confirmation">`,
    );
    // Its link died unused.
    await linkMadeAgo(id, '25 hours');
    expect(
      (await postForm(app, '/channels/confirm', { token: first })).statusCode,
    ).toBe(410);

    const resent = await post(`/channels/${id}/resend`, cookie);
    expect(resent.statusCode).toBe(303);
    expect(resent.headers.location).toBe(`/channels/${id}?done=resent`);
    expect(
      hook(
        (await get(`/channels/${id}?done=resent`, cookie)).body,
        'channel-note',
      ),
    ).toBe(
      'We mailed this address a new link. It works for 24 hours; the links mailed before it work no more.',
    );
    await service.drain();
    const mails = service.mailsTo(address);
    expect(mails.map((mail) => mail.subject)).toEqual([
      'Confirm this address for Vigil alerts',
      'Confirm this address for Vigil alerts',
    ]);
    const second = tokenOf(mails[1] as ParsedMail);
    expect(second).not.toBe(first);
    expect(await confirmationMailsOf(id)).toEqual([
      { state: 'sent', hours: 24 },
      { state: 'sent', hours: 24 },
    ]);
    const page2 = await get(`/channels/${id}`, cookie);
    expect(page2.body).toContain('the link works for 24 hours');
    expect(
      (await postForm(app, '/channels/confirm', { token: first })).statusCode,
    ).toBe(410);
    const confirmed = await postForm(app, '/channels/confirm', {
      token: second,
    });
    expect(confirmed.statusCode).toBe(200);
    // Confirmed, nothing more to send, nor to offer.
    const done = await get(`/channels/${id}`, cookie);
    expect(done.body).not.toContain('data-testid="resend-confirmation"');
    const again = await post(`/channels/${id}/resend`, cookie);
    expect(again.headers.location).toBe(`/channels/${id}`);
    await service.drain();
    expect(service.mailsTo(address)).toHaveLength(2);
  });

  it('drops the old mail not sent yet; a second press within a minute sends nothing', async () => {
    const { cookie, email } = await confirmedAccount();
    const address = friend();
    const id = await added(cookie, 'email', address);
    await service.drain();
    // A mail of the old link waiting for its retry.
    await sql`insert into deliveries (kind, channel, account_id, channel_id,
                                      target, secret, stream, payload,
                                      next_attempt_at, deadline_at)
      select 'channel.confirm', 'email', accounts.id, ${id}::bigint,
             ${address}, 'old-token', ${`channel:${id}|confirm`},
             jsonb_build_object('channelId', ${id}::text, 'owner', 'a•••'),
             now() + interval '1 hour', now() + interval '24 hours'
        from accounts where lower(email) = ${email.toLowerCase()}`.execute(
      app.database.db,
    );
    expect(await resendRefused(cookie, id, 'cooldown')).toBe(
      'Not sent: a link went to this address less than a minute ago. Wait a minute before you send another.',
    );
    await linkMadeAgo(id, '2 minutes');
    const resent = await post(`/channels/${id}/resend`, cookie);
    expect(resent.headers.location).toBe(`/channels/${id}?done=resent`);
    await service.drain();
    // The first mail, sent, and the new one; the waiting one is gone.
    expect(await confirmationMailsOf(id)).toEqual([
      { state: 'sent', hours: 24 },
      { state: 'sent', hours: 24 },
    ]);
    const mails = service.mailsTo(address);
    expect(mails).toHaveLength(2);
    expect(mails.map((mail) => mail.text).join()).not.toContain('old-token');
    const token = tokenOf(mails[1] as ParsedMail);
    expect(
      (await postForm(app, '/channels/confirm', { token })).statusCode,
    ).toBe(200);
  });

  it('sends no mail of an older link retried after it: the new link keeps working', async () => {
    const { cookie, email } = await confirmedAccount();
    const address = friend();
    const id = await added(cookie, 'email', address);
    await service.drain();
    await linkMadeAgo(id, '2 minutes');
    expect(
      (await post(`/channels/${id}/resend`, cookie)).headers.location,
    ).toBe(`/channels/${id}?done=resent`);
    // The first mail's retry, queued before the resend (a send that was
    // under way when it was pressed, failed, and is due again).
    await sql`insert into deliveries (kind, channel, account_id, channel_id,
                                      target, stream, payload,
                                      next_attempt_at, deadline_at, created_at)
      select 'channel.confirm', 'email', accounts.id, ${id}::bigint,
             ${address}, ${`channel:${id}|confirm`},
             jsonb_build_object('channelId', ${id}::text, 'owner', 'a•••'),
             now(), now() + interval '24 hours' - interval '2 minutes',
             now() - interval '2 minutes'
        from accounts where lower(email) = ${email.toLowerCase()}`.execute(
      app.database.db,
    );
    await service.drain();
    // The first mail and the new one; the retry of the old link ends unsent.
    const mails = service.mailsTo(address);
    expect(mails).toHaveLength(2);
    expect(await confirmationMailsOf(id)).toEqual([
      { state: 'sent', hours: 24 },
      { state: 'sent', hours: 24 },
      { state: 'sent', hours: 24 },
    ]);
    const token = tokenOf(mails[1] as ParsedMail);
    expect(
      (await postForm(app, '/channels/confirm', { token })).statusCode,
    ).toBe(200);
  });

  it(`holds an account to ${CONFIRM_MAILS_PER_DAY} confirmation mails in 24 hours, adds and resends together`, async () => {
    const { cookie } = await confirmedAccount();
    const ids: string[] = [];
    for (let index = 0; index < 5; index += 1) {
      ids.push(await added(cookie, 'email', friend()));
    }
    // Sent: a mail dropped unsent by the next link would not count.
    await service.drain();
    for (const id of ids) {
      await linkMadeAgo(id, '2 minutes');
      const resent = await post(`/channels/${id}/resend`, cookie);
      expect(resent.headers.location).toBe(`/channels/${id}?done=resent`);
    }
    await service.drain();
    const [last = ''] = ids.slice(-1);
    await linkMadeAgo(last, '2 minutes');
    expect(await resendRefused(cookie, last, 'limited')).toBe(
      `Not sent: your account has sent ${CONFIRM_MAILS_PER_DAY} confirmation links in the last 24 hours, the most it can. Send it again later.`,
    );
    // A removed address's mails, sent, still count; its add is refused.
    expect((await post(`/channels/${last}/remove`, cookie)).statusCode).toBe(
      303,
    );
    const refused = await addChannel(cookie, 'email', friend());
    expect(refused.statusCode).toBe(422);
    expect(hook(refused.body, 'error-summary')).toBe(
      `There is a problem Add this address later: your account has sent ${CONFIRM_MAILS_PER_DAY} confirmation links in the last 24 hours, the most it can`,
    );
    expect(refused.body).toContain('id="target-error"');
    // Other kinds are not mailed, and not held.
    await added(cookie, 'ntfy', 'https://ntfy.sh/after-the-cap');
    // A mail older than 24 hours counts no more.
    const [firstId = ''] = ids;
    await sql`update deliveries set created_at = now() - interval '25 hours'
               where channel_id = ${firstId}::bigint
                 and id = (select min(id) from deliveries
                            where channel_id = ${firstId}::bigint)`.execute(
      app.database.db,
    );
    await linkMadeAgo(firstId, '2 minutes');
    expect(
      (await post(`/channels/${firstId}/resend`, cookie)).headers.location,
    ).toBe(`/channels/${firstId}?done=resent`);
  });

  it('answers 404 for another account’s channel, changing nothing; is refused from another site’s page', async () => {
    const owner = await confirmedAccount();
    const id = await added(owner.cookie, 'email', friend());
    await linkMadeAgo(id, '2 minutes');
    const { cookie } = await confirmedAccount();
    const answer = await post(`/channels/${id}/resend`, cookie);
    expect(answer.statusCode).toBe(404);
    expect(hook(answer.body, 'channel-not-found')).toBeDefined();
    const crossSite = await postForm(
      app,
      `/channels/${id}/resend`,
      {},
      { cookie: owner.cookie, 'sec-fetch-site': 'cross-site' },
    );
    expect(crossSite.statusCode).toBe(403);
    expect(await confirmationMailsOf(id)).toHaveLength(1);
    // Not an address: nothing to send.
    const hookId = await added(owner.cookie, 'ntfy', 'https://ntfy.sh/no-link');
    const none = await post(`/channels/${hookId}/resend`, owner.cookie);
    expect(none.headers.location).toBe(`/channels/${hookId}`);
    expect((await get(`/channels/${hookId}`, owner.cookie)).body).not.toContain(
      'data-testid="resend-confirmation"',
    );
  });
});

describe('a site going down', () => {
  it('reaches a confirmed webhook and a confirmed address, not an unconfirmed one; an address unsubscribed by its one-click link gets nothing more', async () => {
    const { cookie, email, n } = await confirmedAccount();
    const [siteId] = await siteIdsOf(email);
    const webhook = await added(cookie, 'webhook', hookUrl('/alerts'));
    const secret = (await channelRow(webhook))?.secret ?? '';
    const confirmedAddress = friend();
    const confirmedChannel = await added(cookie, 'email', confirmedAddress);
    const waitingAddress = friend();
    await added(cookie, 'email', waitingAddress);
    await service.drain();
    const [confirmation] = service.mailsTo(confirmedAddress);
    const token = confirmation ? tokenOf(confirmation) : '';
    expect(
      (await postForm(app, '/channels/confirm', { token })).statusCode,
    ).toBe(200);

    // Up, then two failed checks in a row: down.
    await app.monitor.scheduler?.runDue();
    site.set(n, 'fail');
    clock.advance(TEST_INTERVAL_MS);
    await app.monitor.scheduler?.runDue();
    clock.advance(TEST_INTERVAL_MS / 3);
    await app.monitor.scheduler?.runDue();
    await service.drain();

    const alerts = received.filter((request) => request.path === '/alerts');
    expect(alerts).toHaveLength(1);
    const [down] = alerts;
    const body = down ? verified(down, secret) : {};
    expect(body).toMatchObject({
      type: 'site.down',
      site: {
        id: siteId,
        name: `site.test:${site.site.port}`,
        url: site.url(n),
      },
      incident: {
        id: expect.stringMatching(/^\d+$/) as string,
        ended_at: null,
        reason_code: 'status',
        reason: 'HTTP 503 Service Unavailable',
      },
    });

    const downMails = service
      .mailsTo(confirmedAddress)
      .filter((mail) => mail.subject?.startsWith('Down: '));
    expect(downMails).toHaveLength(1);
    const [mail] = downMails;
    const unsubscribe = new URL(
      /^<(https:\/\/[^>]+)>$/.exec(headerLine(mail, 'list-unsubscribe'))?.[1] ??
        'https://vigil.example/',
    );
    expect(unsubscribe.origin + unsubscribe.pathname).toBe(
      'https://vigil.example/channels/unsubscribe',
    );
    expect(unsubscribe.searchParams.get('c')).toBe(confirmedChannel);
    expect(headerLine(mail, 'list-unsubscribe-post')).toBe(
      'List-Unsubscribe=One-Click',
    );
    // The unconfirmed address got its confirmation only.
    expect(service.mailsTo(waitingAddress).map((one) => one.subject)).toEqual([
      'Confirm this address for Vigil alerts',
    ]);

    // Opening the link changes nothing; a forged token stops nothing.
    const path = `${unsubscribe.pathname}${unsubscribe.search}`;
    const opened = await app.inject({ method: 'GET', url: path });
    expect(opened.statusCode).toBe(200);
    expect(hook(opened.body, 'channel-unsubscribe')).toBe('Stop alert mail');
    expect((await channelRow(confirmedChannel))?.disabled_at).toBeNull();
    const forged = new URL(unsubscribe);
    const real = unsubscribe.searchParams.get('t') ?? '';
    forged.searchParams.set(
      't',
      `${real.slice(0, -1)}${real.endsWith('A') ? 'E' : 'A'}`,
    );
    const refused = await app.inject({
      method: 'POST',
      url: `${forged.pathname}${forged.search}`,
      headers: { 'content-type': FORM },
      payload: 'List-Unsubscribe=One-Click',
    });
    expect(refused.statusCode).toBe(404);
    expect(hook(refused.body, 'channel-unsubscribe-refused')).toBeDefined();

    // The mail provider's one-click POST: no session, no Origin.
    const stopped = await app.inject({
      method: 'POST',
      url: path,
      headers: { 'content-type': FORM },
      payload: 'List-Unsubscribe=One-Click',
    });
    expect(stopped.statusCode).toBe(200);
    expect(hook(stopped.body, 'channel-unsubscribed')).toMatch(/f•••@example/);
    expect((await channelRow(confirmedChannel))?.disabled_reason).toBe(
      'unsubscribed',
    );
    const home = await get('/', cookie);
    expect(hooks(home.body, 'channel-state')).toEqual([
      'Working',
      'Off: unsubscribed',
      'Waiting for confirmation',
    ]);

    // Back up: the webhook hears it; the unsubscribed address does not.
    site.set(n, 'up');
    clock.advance(TEST_INTERVAL_MS);
    await app.monitor.scheduler?.runDue();
    await service.drain();
    const types = received
      .filter((request) => request.path === '/alerts')
      .map((request) => verified(request, secret).type);
    expect(types).toEqual(['site.down', 'site.up']);
    expect(
      service
        .mailsTo(confirmedAddress)
        .filter((one) => one.subject?.startsWith('Back up: ')),
    ).toEqual([]);
    expect(service.mailsTo(waitingAddress).map((one) => one.subject)).toEqual([
      'Confirm this address for Vigil alerts',
    ]);
  });
});
