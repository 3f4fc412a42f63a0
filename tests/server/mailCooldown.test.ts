/**
 * The limits on mails someone can ask for, as issue 46 asks (ADR-0097):
 *
 * - an address has a cooldown, not an hourly budget (django-allauth's
 *   "confirm_email" rate limit): one mail a minute, so a flood of
 *   `/signin` posts naming it costs its owner a minute, not an hour;
 * - and a day's ceiling (10), which only the mails let through count
 *   against;
 * - a client over its own limit (10 requests an hour) gets nothing about
 *   an address counted, so it cannot fill the counters' table;
 * - a known and an unknown address cost the same statements.
 *
 * Mails are read from a real SMTP server; time is moved on by moving the
 * counters' windows back (they are measured by the database's clock).
 */
import { sql, type KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linkMailsRepository } from '../../server/accounts/linkMails/linkMails';
import { FORM } from './support/apiServer';
import {
  askSignIn as askSignInOf,
  type MailService,
  signUpAndSignIn,
  startMailService,
} from './support/mailService';

/** The day's mails of one address, as issue 46 sets them (ADR-0097). */
const PER_DAY = 10;
/** The hour's requests of one client (ADR-0097, unchanged). */
const PER_CLIENT = 10;

let service: MailService;

beforeAll(async () => {
  service = await startMailService();
});

afterAll(() => service.close());

/** Asks for a sign-in link at `/signin`, as the page's form does. */
async function askSignIn(email: string, remoteAddress: string) {
  const page = await askSignInOf(service.app, email, remoteAddress);
  expect(page.statusCode).toBe(200);
  return page.body;
}

/** Moves the limits' clock on: every counter's window ends that much sooner. */
async function advance(seconds: number): Promise<void> {
  await sql`update rate_limit_windows
               set window_ends_at = window_ends_at - make_interval(secs => ${seconds})`.execute(
    service.app.database.db,
  );
}

/** How many mails an address has been sent since `before`, once sent. */
async function mailsSince(email: string, before: number): Promise<number> {
  await service.drain();
  return service.mailsTo(email).length - before;
}

/** An account, its confirmation sent, and how many mails it has had. */
async function account(): Promise<{ email: string; before: number }> {
  const { email } = await signUpAndSignIn(service.app);
  await service.drain();
  return { email, before: service.mailsTo(email).length };
}

let clients = 0;
/** A client address no other call returned (TEST-NET-2, then TEST-NET-3). */
function newClient(): string {
  clients += 1;
  return clients < 250 ? `198.51.100.${clients}` : `203.0.113.${clients - 249}`;
}

describe('one address’s mails (issue 46: a cooldown, not an hourly budget)', () => {
  it('a flood of sign-in requests naming an address sends it one mail, and its owner asking a minute later gets a link', async () => {
    const { email, before } = await account();
    const attacker = newClient();
    const pages = [];
    for (let index = 0; index < 6; index += 1) {
      pages.push(await askSignIn(email, attacker));
    }
    expect(await mailsSince(email, before)).toBe(1);
    // The owner, within the minute: the same page, no second mail.
    const owner = newClient();
    pages.push(await askSignIn(email, owner));
    for (const page of pages) expect(page).toBe(pages[0]);
    expect(await mailsSince(email, before)).toBe(1);
    // A minute on, the owner's own request is mailed.
    await advance(61);
    await askSignIn(email, owner);
    expect(await mailsSince(email, before)).toBe(2);
  });

  it('sends an address at most one mail a minute, from any number of clients', async () => {
    const { email, before } = await account();
    await askSignIn(email, newClient());
    await advance(59);
    await askSignIn(email, newClient());
    await askSignIn(email, newClient());
    expect(await mailsSince(email, before)).toBe(1);
    await advance(2);
    await askSignIn(email, newClient());
    expect(await mailsSince(email, before)).toBe(2);
  });

  it(`sends an address at most ${PER_DAY} mails a day; the requests a cooldown refused do not count against them`, async () => {
    const { email, before } = await account();
    for (let mail = 0; mail < PER_DAY; mail += 1) {
      // Each minute's flood: one mail, however many requests.
      for (let request = 0; request < 3; request += 1) {
        await askSignIn(email, newClient());
      }
      await advance(61);
    }
    expect(await mailsSince(email, before)).toBe(PER_DAY);
    await askSignIn(email, newClient());
    await advance(60 * 60);
    await askSignIn(email, newClient());
    expect(await mailsSince(email, before)).toBe(PER_DAY);
    // A day after the first of them.
    await advance(24 * 60 * 60);
    await askSignIn(email, newClient());
    expect(await mailsSince(email, before)).toBe(PER_DAY + 1);
  });

  it('the resent confirmation shares the cooldown with sign-in links', async () => {
    const { email, cookie } = await signUpAndSignIn(service.app);
    await service.drain();
    const resend = () =>
      service.app.inject({
        method: 'POST',
        url: '/resend-confirmation',
        headers: {
          'content-type': FORM,
          'sec-fetch-site': 'same-origin',
          cookie,
        },
        payload: '',
      });
    const before = service.mailsTo(email).length;
    expect((await resend()).headers.location).toBe('/?resent=sent');
    expect((await resend()).headers.location).toBe('/?resent=limited');
    await askSignIn(email, newClient());
    expect(await mailsSince(email, before)).toBe(1);
    await advance(61);
    expect((await resend()).headers.location).toBe('/?resent=sent');
    expect(await mailsSince(email, before)).toBe(2);
  });
});

describe('a client over its limit (issue 46)', () => {
  it('gets no counter for the addresses it names, known or not', async () => {
    const db = service.app.database.db;
    const counters = async () =>
      Number(
        (
          await db
            .selectFrom('rate_limit_windows')
            .select(db.fn.countAll().as('rows'))
            .executeTakeFirstOrThrow()
        ).rows,
      );
    const { email, before } = await account();
    const client = newClient();
    for (let index = 0; index < PER_CLIENT; index += 1) {
      await askSignIn(`nobody-${index}-${client}@example.com`, client);
    }
    const within = await counters();
    for (let index = 0; index < 20; index += 1) {
      await askSignIn(`flood-${index}-${client}@example.com`, client);
    }
    await askSignIn(email, client);
    expect(await counters()).toBe(within);
    expect(await mailsSince(email, before)).toBe(0);
  });
});

describe('the same work for a known and an unknown address (ADR-0097)', () => {
  it('runs the same statements, in the same order, for either', async () => {
    const statements: string[] = [];
    const base = service.app.database.db;
    const traced = base.withPlugin({
      transformQuery: (args) => {
        statements.push(
          base.getExecutor().compileQuery(args.node, args.queryId).sql,
        );
        return args.node;
      },
      transformResult: (args) => Promise.resolve(args.result),
    } satisfies KyselyPlugin);
    const outbox = linkMailsRepository(traced);
    const { email } = await account();
    const run = async (address: string) => {
      statements.length = 0;
      const queued = await outbox.requestMail({
        kind: 'signin',
        email: address,
        clientAddress: newClient(),
      });
      return { queued, statements: [...statements] };
    };
    const known = await run(email);
    const unknown = await run(`nobody-${newClient()}@example.com`);
    expect(known.queued).toBe(true);
    expect(unknown.queued).toBe(false);
    expect(known.statements.length).toBeGreaterThan(0);
    expect(unknown.statements).toEqual(known.statements);
  });
});
