/**
 * The accounts repository on the run's engine (server/accounts/accounts.ts;
 * ADR-0043 to ADR-0046): one account per address in any case, decided by the
 * database even when sign-ups arrive together; the one-time token stored only
 * as its SHA-256, good once and for 10 minutes, with its sid; sessions; and the
 * field limits as CHECK constraints of the table itself.
 */
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scratchDatabase } from '../../harness/page/scratchDatabase';
import {
  AccountLimitError,
  accountsRepository,
  type AccountsRepository,
  type NewAccountRecord,
  type OneTimeAuth,
} from '../../server/accounts/accounts';
import { CAMPAIGN_MAX_LENGTH } from '../../common/campaign';
import { FIELD_LIMITS } from '../../common/fieldLimits';
import type { Database } from '../../server/db/database';
import { openServiceDatabase, type Schema } from '../../server/schema';
import { queueConfirmation } from '../../server/accounts/index';
import { watchTheSite } from '../../server/monitor/watch';

let database: Database<Schema>;
let accounts: AccountsRepository;

beforeAll(async () => {
  database = await openServiceDatabase(await scratchDatabase());
  accounts = accountsRepository(database.db);
  // The sign-up's statement as the service makes it (app.accounts.onSignUp).
  accounts.onSignUp(queueConfirmation);
  accounts.onSignUp(watchTheSite);
});

afterAll(() => database.close());

let made = 0;
function account(overrides: Partial<NewAccountRecord> = {}): NewAccountRecord {
  made += 1;
  return {
    name: 'Ada Lovelace',
    email: `ada.${made}@example.com`,
    siteUrl: 'https://example.com',
    newsletter: true,
    campaign: undefined,
    ...overrides,
  };
}

const sha256 = (text: string) => createHash('sha256').update(text).digest();

/** Creates an account that must be new; its one-time token and sid. */
async function created(record = account()): Promise<OneTimeAuth> {
  const auth = await accounts.create(record);
  if (!auth) throw new Error(`${record.email} was refused as in use`);
  return auth;
}

describe('an account', () => {
  it('is stored with every field as given, and its creation time', async () => {
    const record = account({
      name: 'Grace Hopper',
      email: 'Grace.Hopper@Example.org',
      siteUrl: 'https://navy.example/cobol',
      newsletter: false,
      campaign: 'spring-launch',
    });
    const before = Date.now();
    expect(await accounts.create(record)).not.toBeNull();
    const row = await database.db
      .selectFrom('accounts')
      .selectAll()
      .where('email', '=', 'Grace.Hopper@Example.org')
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      name: 'Grace Hopper',
      email: 'Grace.Hopper@Example.org',
      site_url: 'https://navy.example/cobol',
      newsletter: false,
      campaign: 'spring-launch',
    });
    expect(row.id).toMatch(/^[\da-f-]{36}$/);
    expect(row.created_at.getTime()).toBeGreaterThan(before - 60_000);
  });

  it('is refused for an address already used, in any case', async () => {
    const first = account({ email: 'Ada@Example.com' });
    expect(await accounts.create(first)).not.toBeNull();
    for (const email of [
      'ada@example.com',
      'ADA@EXAMPLE.COM',
      'aDa@ExAmPlE.cOm',
    ]) {
      expect(await accounts.create(account({ email })), email).toBeNull();
    }
    const rows = await database.db
      .selectFrom('accounts')
      .select('email')
      .where(sql<string>`lower(email)`, '=', 'ada@example.com')
      .execute();
    expect(rows).toEqual([{ email: 'Ada@Example.com' }]);
  });

  it('is created once when 16 sign-ups with one address arrive together', async () => {
    const email = `together.${process.pid}@example.com`;
    const results = await Promise.all(
      Array.from({ length: 16 }, (_, index) =>
        accounts.create(
          account({ email: index % 2 ? email : email.toUpperCase() }),
        ),
      ),
    );
    expect(results.filter((result) => result !== null)).toHaveLength(1);
    const { count } = await database.db
      .selectFrom('accounts')
      .select((eb) => eb.fn.countAll<string>().as('count'))
      .where(sql<string>`lower(email)`, '=', email)
      .executeTakeFirstOrThrow();
    expect(Number(count)).toBe(1);
  });
});

describe('what the features add to a sign-up (app.accounts.onSignUp)', () => {
  it('commits with the account: the site and the confirmation, none for an address in use', async () => {
    const record = account({ siteUrl: 'https://slot.example/' });
    await created(record);
    expect(await accounts.create({ ...record, name: 'Again' })).toBeNull();
    const rows = await sql<{
      monitors: number | string;
      mails: number | string;
    }>`
      select (select count(*) from monitors join accounts on accounts.id = monitors.account_id
               where accounts.email = ${record.email}) as monitors,
             (select count(*) from deliveries join accounts on accounts.id = deliveries.account_id
               where accounts.email = ${record.email}) as mails`.execute(
      database.db,
    );
    expect(
      rows.rows.map((row) => [Number(row.monitors), Number(row.mails)]),
    ).toEqual([[1, 1]]);
  });

  it('is refused once a sign-up has run: the statement is built then', async () => {
    const repository = accountsRepository(database.db);
    repository.onSignUp(queueConfirmation);
    expect(await repository.create(account())).not.toBeNull();
    expect(() => repository.onSignUp(watchTheSite)).toThrow(
      /before the first sign-up/,
    );
  });
});

describe('the limits, enforced by the table (ADR-0044)', () => {
  it('are the API’s own', () => {
    // The table's constraints below are written from these numbers.
    expect(FIELD_LIMITS).toEqual({ name: 200, email: 254, url: 2048 });
    expect(CAMPAIGN_MAX_LENGTH).toBe(200);
  });

  const insert = (values: Partial<NewAccountRecord>) =>
    database.db
      .insertInto('accounts')
      .values({
        name: values.name ?? 'Ada',
        email: values.email ?? `limit.${(made += 1)}@example.com`,
        site_url: values.siteUrl ?? null,
        newsletter: true,
        campaign: values.campaign ?? null,
      })
      .execute();

  it.each([
    ['name', { name: 'n'.repeat(200) }, { name: 'n'.repeat(201) }],
    [
      'email',
      { email: `${'e'.repeat(242)}@example.com` },
      { email: `${'e'.repeat(243)}@example.com` },
    ],
    [
      'url',
      { siteUrl: `https://example.com/${'u'.repeat(2028)}` },
      { siteUrl: `https://example.com/${'u'.repeat(2029)}` },
    ],
    [
      'utm_campaign',
      { campaign: 'c'.repeat(200) },
      { campaign: 'c'.repeat(201) },
    ],
  ] as const)(
    '%s: the limit is stored, one character over is refused',
    async (field, atLimit, overLimit) => {
      await expect(insert(atLimit)).resolves.toBeDefined();
      await expect(insert(overLimit)).rejects.toMatchObject({
        code: '23514',
      });
      // Through the repository, the refusal names the API's field.
      await expect(accounts.create(account(overLimit))).rejects.toEqual(
        new AccountLimitError(field),
      );
    },
  );

  it('counts characters, not bytes: 200 astral characters are a name', async () => {
    await expect(insert({ name: '😀'.repeat(200) })).resolves.toBeDefined();
    await expect(insert({ name: '😀'.repeat(201) })).rejects.toMatchObject({
      code: '23514',
    });
  });

  it('refuses an empty name', async () => {
    await expect(insert({ name: '' })).rejects.toMatchObject({ code: '23514' });
  });
});

describe('the one-time token (ADR-0045)', () => {
  it('is 32 random bytes in base64url, stored only as its SHA-256, next to its sid', async () => {
    const auth = await created();
    expect(auth?.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(auth.token, 'base64url')).toHaveLength(32);
    const rows = await database.db
      .selectFrom('one_time_tokens')
      .selectAll()
      .where('sid', '=', auth.sid)
      .execute();
    expect(rows).toHaveLength(1);
    expect(Buffer.from(rows[0]?.token_hash ?? [])).toEqual(sha256(auth.token));
    // The token itself is nowhere in the table.
    const dump = JSON.stringify(
      await database.db.selectFrom('one_time_tokens').selectAll().execute(),
      (_key, value: unknown) =>
        value instanceof Uint8Array
          ? Buffer.from(value).toString('base64url')
          : value,
    );
    expect(dump).not.toContain(auth.token);
  });

  it('expires 10 minutes after the sign-up', async () => {
    const auth = await created();
    const row = await database.db
      .selectFrom('one_time_tokens')
      .select([
        sql<number>`extract(epoch from expires_at - created_at)::integer`.as(
          'lifetime',
        ),
      ])
      .where('sid', '=', auth.sid)
      .executeTakeFirstOrThrow();
    expect(row.lifetime).toBe(600);
  });

  it('signs in once: a second redemption gets nothing', async () => {
    const record = account();
    const auth = await created(record);
    const { id } = await database.db
      .selectFrom('accounts')
      .select('id')
      .where('email', '=', record.email)
      .executeTakeFirstOrThrow();
    expect(await accounts.redeem(auth, 'session-one')).toEqual({
      // What the page asks the monitor about (server/monitor/).
      id,
      name: record.name,
      email: record.email,
      siteUrl: record.siteUrl,
      // A new account's address is proved only by its magic link (ADR-0098),
      // and it is deleted if not proved within 7 days.
      confirmed: false,
      deletedUnconfirmedAt: expect.any(Date) as Date,
    });
    expect(await accounts.redeem(auth, 'session-two')).toBeNull();
  });

  it('gives one session when 10 redemptions arrive together', async () => {
    const auth = await created();
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        accounts.redeem(auth, `together-${index}`),
      ),
    );
    expect(results.filter((result) => result !== null)).toHaveLength(1);
    const winner = results.findIndex((result) => result !== null);
    for (let index = 0; index < 10; index += 1) {
      expect(
        await accounts.findBySession(`together-${index}`),
        `session ${index}`,
      ).toEqual(index === winner ? results[winner] : null);
    }
  });

  it('is refused once expired, with a sid that is not its own, or forged', async () => {
    const expired = await created();
    await database.db
      .updateTable('one_time_tokens')
      .set({ expires_at: sql`now() - interval '1 second'` })
      .where('sid', '=', expired.sid)
      .execute();
    expect(await accounts.redeem(expired, 'late')).toBeNull();

    const mine = await created();
    const theirs = await created();
    expect(
      await accounts.redeem({ token: mine.token, sid: theirs.sid }, 'mixed'),
    ).toBeNull();
    expect(
      await accounts.redeem({ token: 'forged', sid: mine.sid }, 'forged'),
    ).toBeNull();
    expect(
      await accounts.redeem({ token: mine.token, sid: 'not-a-uuid' }, 'bad'),
    ).toBeNull();
    // None of these spent the real one.
    expect(await accounts.redeem(mine, 'real')).not.toBeNull();
  });
});

describe('a session (ADR-0046)', () => {
  it('is stored only as its SHA-256, lasts 365 days, and ends on sign-out', async () => {
    const record = account();
    const auth = await created(record);
    await accounts.redeem(auth, 'the-session-secret');
    const row = await database.db
      .selectFrom('sessions')
      .select([
        'session_hash',
        sql<number>`round(extract(epoch from expires_at - created_at) / 86400)::integer`.as(
          'days',
        ),
      ])
      .where('session_hash', '=', sha256('the-session-secret'))
      .executeTakeFirstOrThrow();
    expect(row.days).toBe(365);
    expect(await accounts.findBySession('the-session-secret')).toMatchObject({
      email: record.email,
    });
    await accounts.endSession('the-session-secret');
    expect(await accounts.findBySession('the-session-secret')).toBeNull();
  });

  it('is not found once expired, or when unknown', async () => {
    const auth = await created();
    await accounts.redeem(auth, 'short-lived');
    await database.db
      .updateTable('sessions')
      .set({ expires_at: sql`now() - interval '1 second'` })
      .where('session_hash', '=', sha256('short-lived'))
      .execute();
    expect(await accounts.findBySession('short-lived')).toBeNull();
    expect(await accounts.findBySession('never-issued')).toBeNull();
  });
});

describe('the confirmation mail of a sign-up (ADR-0095)', () => {
  const queuedFor = (email: string) =>
    database.db
      .selectFrom('deliveries')
      .innerJoin('accounts', 'accounts.id', 'deliveries.account_id')
      .select([
        'deliveries.kind',
        'deliveries.channel',
        'deliveries.target',
        'deliveries.state',
        'deliveries.attempts',
      ])
      .where(sql`lower(accounts.email)`, '=', email.toLowerCase())
      .execute();

  it('is queued once, to the address as given, by the statement that creates the account', async () => {
    const record = account({ email: 'Queued.Once@Example.com' });
    await created(record);
    expect(await queuedFor(record.email)).toEqual([
      {
        kind: 'account.confirm',
        channel: 'email',
        target: 'Queued.Once@Example.com',
        state: 'pending',
        attempts: 0,
      },
    ]);
  });

  it('is not queued again when the address is already in use', async () => {
    const record = account();
    await created(record);
    expect(
      await accounts.create({ ...record, email: record.email.toUpperCase() }),
    ).toBeNull();
    expect(await queuedFor(record.email)).toHaveLength(1);
  });

  it('is one per account when 10 sign-ups with one address arrive together', async () => {
    const record = account();
    const results = await Promise.all(
      Array.from({ length: 10 }, () => accounts.create(record)),
    );
    expect(results.filter((result) => result !== null)).toHaveLength(1);
    expect(await queuedFor(record.email)).toHaveLength(1);
  });

  it('leaves the account unconfirmed, to be deleted 7 days after the sign-up unless confirmed (ADR-0098)', async () => {
    const record = account();
    await created(record);
    const row = await database.db
      .selectFrom('accounts')
      .select([
        'confirmed_at',
        'newsletter_confirmed_at',
        sql<number>`extract(epoch from confirm_by - created_at)::integer`.as(
          'grace',
        ),
      ])
      .where('email', '=', record.email)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({
      confirmed_at: null,
      newsletter_confirmed_at: null,
      grace: 7 * 24 * 60 * 60,
    });
  });
});
