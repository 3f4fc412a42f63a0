/**
 * What the service deletes once it has expired (issue 35; ADR-0089): one-time
 * tokens past their 10 minutes, sessions that expired or were ended, and
 * consent records older than `CONSENT_RETENTION_DAYS`; never anything that
 * still signs someone in or still proves a choice in force. Ages are set in
 * the rows themselves (the database's clock decides), and the service's
 * timer is the test's (fake `setInterval`).
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import {
  afterAll,
  afterEach,
  beforeAll,
  describe,
  expect,
  it,
  vi,
} from 'vitest';
import { accountsRepository } from '../../server/accounts/accounts';
import { newSecret, secretHash } from '../../server/accounts/secrets';
import { HOUSEKEEPING_INTERVAL_MS } from '../../server/app';
import { consentRecordsRepository } from '../../server/consent/consentRecords';
import { linksRepository } from '../../server/accounts/links/links';
import { deliveriesRepository } from '../../server/outbox/deliveries';
import {
  HOURS_KEPT_DAYS,
  INCIDENTS_KEPT_DAYS,
  monitorRepository,
} from '../../server/monitor/repository';
import { deleteEndedWindows } from '../../server/rateLimit/rateLimitStore';
import { affectedRowsLog } from './support/affectedRows';
import { apiServer } from './support/apiServer';

let app: FastifyInstance;

beforeAll(async () => {
  app = await apiServer();
});

afterAll(() => app.close());

afterEach(() => {
  vi.useRealTimers();
});

let accounts = 0;
/** A new account and its one-time token, through the repository. */
async function newAccount(server: FastifyInstance = app) {
  accounts += 1;
  const { repository } = server.accounts;
  const auth = await repository.create({
    name: 'Ada Lovelace',
    email: `housekeeping.${process.pid}.${accounts}@example.com`,
    siteUrl: undefined,
    newsletter: false,
    campaign: undefined,
  });
  if (!auth) throw new Error('the address was taken');
  return { repository, auth };
}

/** A new account with its address, signed in once. */
async function newAccountWithAddress() {
  const { repository, auth } = await newAccount();
  const email = `housekeeping.${process.pid}.${accounts}@example.com`;
  // Its one-time token, used, is kept for its 10 minutes (ADR-0089): it must
  // go with the account too.
  const session = newSecret();
  expect(await repository.redeem(auth, session)).not.toBeNull();
  return { repository, auth, session, email };
}

/** A signed-in session of a new account: its cookie's value. */
async function newSession(server: FastifyInstance = app) {
  const { repository, auth } = await newAccount(server);
  const session = newSecret();
  expect(await repository.redeem(auth, session)).not.toBeNull();
  return { repository, session };
}

const A_SECOND_AGO = sql<Date>`now() - interval '1 second'`;

/** Makes a token's 10 minutes over. */
function expireToken(server: FastifyInstance, sid: string) {
  return server.database.db
    .updateTable('one_time_tokens')
    .set({ expires_at: A_SECOND_AGO })
    .where('sid', '=', sid)
    .execute();
}

/** Makes a session's year over. */
function expireSession(server: FastifyInstance, session: string) {
  return server.database.db
    .updateTable('sessions')
    .set({ expires_at: A_SECOND_AGO })
    .where('session_hash', '=', secretHash(session))
    .execute();
}

async function tokenCount(sid: string, server: FastifyInstance = app) {
  const rows = await server.database.db
    .selectFrom('one_time_tokens')
    .select('sid')
    .where('sid', '=', sid)
    .execute();
  return rows.length;
}

async function sessionCount(session: string, server: FastifyInstance = app) {
  const rows = await server.database.db
    .selectFrom('sessions')
    .select('account_id')
    .where('session_hash', '=', secretHash(session))
    .execute();
  return rows.length;
}

/** A consent record stored `days` ago: its id. */
async function recordAged(days: number, server: FastifyInstance = app) {
  const consentId = randomUUID();
  await consentRecordsRepository(server.database.db).append(
    {
      consentId,
      choice: 'accepted',
      revision: 1,
      source: 'modal',
      path: '/signup',
    },
    { ipNetwork: undefined, userAgent: undefined },
  );
  await sql`update consent_records set recorded_at = now() - make_interval(days => ${days}) where consent_id = ${consentId}`.execute(
    server.database.db,
  );
  return consentId;
}

describe('expired tokens and sessions', () => {
  it('are deleted; live ones stay and still sign in', async () => {
    const live = await newAccount();
    const expired = await newAccount();
    await expireToken(app, expired.auth.sid);
    const used = await newSession();
    const open = await newSession();
    const ended = await newSession();
    await ended.repository.endSession(ended.session);
    const lapsed = await newSession();
    await expireSession(app, lapsed.session);

    const deleted = await accountsRepository(app.database.db).deleteExpired();
    expect(deleted.tokens).toBeGreaterThanOrEqual(1);
    expect(deleted.sessions).toBeGreaterThanOrEqual(2);

    expect(await tokenCount(expired.auth.sid)).toBe(0);
    expect(await sessionCount(ended.session)).toBe(0);
    expect(await sessionCount(lapsed.session)).toBe(0);
    // A used token stays until its 10 minutes are over: harmless, spent.
    expect(await sessionCount(used.session)).toBe(1);
    expect(await open.repository.findBySession(open.session)).not.toBeNull();
    expect(await live.repository.redeem(live.auth, newSecret())).not.toBeNull();
  });
});

/** A magic link's token for an account, expiring `expiresIn` from now. */
async function linkToken(email: string, expiresIn: string) {
  const token = newSecret();
  await sql`insert into link_tokens (token_hash, purpose, account_id, expires_at)
            select ${secretHash(token)}, 'signin', id, now() + ${expiresIn}::interval
              from accounts where email = ${email}`.execute(app.database.db);
  return token;
}

async function linkCount(token: string) {
  const rows = await app.database.db
    .selectFrom('link_tokens')
    .select('purpose')
    .where('token_hash', '=', secretHash(token))
    .execute();
  return rows.length;
}

describe('magic links', () => {
  it('are deleted once expired; live ones stay', async () => {
    const { email } = await newAccountWithAddress();
    const expired = await linkToken(email, '-1 second');
    const live = await linkToken(email, '15 minutes');
    const deleted = await linksRepository(app.database.db).deleteExpired();
    expect(deleted).toBeGreaterThanOrEqual(1);
    expect(await linkCount(expired)).toBe(0);
    expect(await linkCount(live)).toBe(1);
  });
});

describe('accounts never confirmed (ADR-0098)', () => {
  const accountCount = async (email: string) =>
    (
      await app.database.db
        .selectFrom('accounts')
        .select('id')
        .where('email', '=', email)
        .execute()
    ).length;

  const setAccount = (email: string, values: string) =>
    sql`update accounts set ${sql.raw(values)} where email = ${email}`.execute(
      app.database.db,
    );

  it('are deleted 7 days after the sign-up with everything of theirs, and the address signs up again', async () => {
    const { email, repository, auth, session } = await newAccountWithAddress();
    const link = await linkToken(email, '15 minutes');
    await setAccount(email, "confirm_by = now() - interval '1 second'");

    expect(await repository.deleteUnconfirmed()).toBeGreaterThanOrEqual(1);
    expect(await accountCount(email)).toBe(0);
    expect(await sessionCount(session)).toBe(0);
    expect(await tokenCount(auth.sid)).toBe(0);
    expect(await linkCount(link)).toBe(0);
    const mails = await app.database.db
      .selectFrom('deliveries')
      .select('id')
      .where('target', '=', email)
      .execute();
    expect(mails).toEqual([]);
    expect(
      await repository.create({
        name: 'The owner',
        email,
        siteUrl: undefined,
        newsletter: false,
        campaign: undefined,
      }),
    ).not.toBeNull();
  });

  it('stay while within their 7 days, once confirmed, and when made before confirmation existed', async () => {
    const young = await newAccountWithAddress();
    const confirmed = await newAccountWithAddress();
    await setAccount(
      confirmed.email,
      "confirmed_at = now() - interval '8 days', confirm_by = now() - interval '1 day'",
    );
    const older = await newAccountWithAddress();
    await setAccount(older.email, 'confirm_by = null');

    await young.repository.deleteUnconfirmed();
    for (const { email } of [young, confirmed, older]) {
      expect(await accountCount(email), email).toBe(1);
    }
  });
});

describe('consent records', () => {
  it('are deleted once older than the retention, and not a day before', async () => {
    const records = consentRecordsRepository(app.database.db);
    const old = await recordAged(366);
    const young = await recordAged(364);
    expect(await records.deleteOlderThan(365)).toBeGreaterThanOrEqual(1);
    expect(await records.history(old)).toEqual([]);
    expect(await records.history(young)).toHaveLength(1);
  });
});

describe('the service', () => {
  it(`deletes what has expired every ${HOUSEKEEPING_INTERVAL_MS / 60_000} minutes, consent records by CONSENT_RETENTION_DAYS`, async () => {
    // Only the service's timer is the test's.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const server = await apiServer({ consentRetentionDays: 400 });
    try {
      const expired = await newAccount(server);
      await expireToken(server, expired.auth.sid);
      const old = await recordAged(401, server);
      const kept = await recordAged(399, server);
      const records = consentRecordsRepository(server.database.db);

      vi.advanceTimersByTime(HOUSEKEEPING_INTERVAL_MS - 1);
      expect(await tokenCount(expired.auth.sid, server)).toBe(1);

      vi.advanceTimersByTime(1);
      // The deletes run on the database; wait for them, not for a time.
      for (let tries = 0; tries < 100; tries += 1) {
        if ((await tokenCount(expired.auth.sid, server)) === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(await tokenCount(expired.auth.sid, server)).toBe(0);
      for (let tries = 0; tries < 100; tries += 1) {
        if ((await records.history(old)).length === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(await records.history(old)).toEqual([]);
      expect(await records.history(kept)).toHaveLength(1);
    } finally {
      await server.close();
    }
  });
});

/**
 * Every housekeeping delete in batches (issue 46; server/db/batchedWrites.ts):
 * with 2 rows per statement, 5 rows due go in statements of 2, 2 and 1
 * rows, and what is not due stays. A service of its own, so that the
 * counts are exactly this test's rows.
 */
describe('in batches', () => {
  let server: FastifyInstance;

  beforeAll(async () => {
    server = await apiServer();
  });

  afterAll(() => server.close());

  /** The service's database, through a log of each statement's rows. */
  function logged() {
    const log = affectedRowsLog();
    return { log, db: server.database.db.withPlugin(log.plugin) };
  }

  const BATCHES_OF_2 = { batchRows: 2 };

  /** A new account's id. */
  async function accountId() {
    const { auth } = await newAccount(server);
    const row = await server.database.db
      .selectFrom('one_time_tokens')
      .select('account_id')
      .where('sid', '=', auth.sid)
      .executeTakeFirstOrThrow();
    return row.account_id;
  }

  it('ended rate-limit windows', async () => {
    await sql`insert into rate_limit_windows (key, hits, window_ends_at)
      select 'ended.' || n, 1, now() - interval '1 second'
        from generate_series(1, 5) as n
      union all select 'live', 1, now() + interval '1 minute'`.execute(
      server.database.db,
    );
    const { log, db } = logged();

    expect(await deleteEndedWindows(db, BATCHES_OF_2)).toBe(5);
    expect(log.affected).toEqual([2, 2, 1]);
    const left = await server.database.db
      .selectFrom('rate_limit_windows')
      .select('key')
      .execute();
    expect(left).toEqual([{ key: 'live' }]);
  });

  it('expired tokens, expired or ended sessions and expired links', async () => {
    const account = await accountId();
    const { db: plain } = server.database;
    // Rows 1 to 5 are past; row 6 still works.
    const hash = (what: string) =>
      sql`sha256(convert_to(${what} || n, 'UTF8'))`;
    const expiry = sql`now() + case when n <= 5 then interval '-1 second'
                                    else interval '1 hour' end`;
    const series = sql`from generate_series(1, 6) as n`;
    await sql`insert into one_time_tokens (token_hash, sid, account_id, expires_at)
      select ${hash('token ')}, gen_random_uuid(), ${account}, ${expiry}
      ${series}`.execute(plain);
    await sql`insert into link_tokens (token_hash, purpose, account_id, expires_at)
      select ${hash('link ')}, 'signin', ${account}, ${expiry}
      ${series}`.execute(plain);
    // Sessions 1 to 3 expired, 4 and 5 ended.
    await sql`insert into sessions (session_hash, account_id, expires_at, ended_at)
      select ${hash('session ')}, ${account},
             now() + case when n <= 3 then interval '-1 second'
                          else interval '1 year' end,
             case when n in (4, 5) then now() end
      ${series}`.execute(plain);
    const { log, db } = logged();

    expect(await accountsRepository(db).deleteExpired(BATCHES_OF_2)).toEqual({
      tokens: 5,
      sessions: 5,
    });
    expect(await linksRepository(db).deleteExpired(BATCHES_OF_2)).toBe(5);
    // The three tables' batches, each 2, 2 and 1 rows.
    expect(log.affected.toSorted()).toEqual([1, 1, 1, 2, 2, 2, 2, 2, 2]);
    const left = (table: 'one_time_tokens' | 'sessions' | 'link_tokens') =>
      server.database.db
        .selectFrom(table)
        .select(sql<number>`count(*)::int`.as('rows'))
        .where('account_id', '=', account)
        .executeTakeFirstOrThrow();
    // The account's own one-time token, live, and each table's row 6.
    expect(await left('one_time_tokens')).toEqual({ rows: 2 });
    expect(await left('sessions')).toEqual({ rows: 1 });
    expect(await left('link_tokens')).toEqual({ rows: 1 });
  });

  it('accounts never confirmed, with what is theirs', async () => {
    const unconfirmed = [];
    for (let n = 0; n < 5; n += 1) unconfirmed.push(await accountId());
    const young = await accountId();
    await server.database.db
      .updateTable('accounts')
      .set({ confirm_by: sql<Date>`now() - interval '1 second'` })
      .where('id', 'in', unconfirmed)
      .execute();
    const { log, db } = logged();

    expect(await accountsRepository(db).deleteUnconfirmed(BATCHES_OF_2)).toBe(
      5,
    );
    expect(log.affected).toEqual([2, 2, 1]);
    const left = await server.database.db
      .selectFrom('accounts')
      .select('id')
      .where('id', 'in', [...unconfirmed, young])
      .execute();
    expect(left).toEqual([{ id: young }]);
    const theirs = await server.database.db
      .selectFrom('deliveries')
      .select('id')
      .where('account_id', 'in', unconfirmed)
      .execute();
    expect(theirs).toEqual([]);
  });

  it('consent records past their retention', async () => {
    const old = [];
    for (let n = 0; n < 5; n += 1) old.push(await recordAged(366, server));
    const young = await recordAged(364, server);
    const { log, db } = logged();

    expect(
      await consentRecordsRepository(db).deleteOlderThan(365, BATCHES_OF_2),
    ).toBe(5);
    expect(log.affected).toEqual([2, 2, 1]);
    const records = consentRecordsRepository(server.database.db);
    for (const consentId of old) {
      expect(await records.history(consentId)).toEqual([]);
    }
    expect(await records.history(young)).toHaveLength(1);
  });

  it('copies of mails sent or given up more than 7 days ago, the rows kept', async () => {
    const account = await accountId();
    // Mails 1 to 3 sent and 4 and 5 given up 8 days ago; 6 sent 6 days ago.
    await sql`insert into deliveries (kind, channel, account_id, target,
                stream, payload, deadline_at, state, sent_at, dead_at, subject,
                text_body, secret)
      select 'account.signin', 'email', ${account}, 'copy.' || n || '@example.com',
             'copy:' || n, '{}'::jsonb, now(),
             case when n in (4, 5) then 'dead' else 'sent' end,
             case when n in (4, 5) then null
                  when n = 6 then now() - interval '6 days'
                  else now() - interval '8 days' end,
             case when n in (4, 5) then now() - interval '8 days' end,
             'Sign in', 'The link', 'whsec_kept'
        from generate_series(1, 6) as n`.execute(server.database.db);
    const { log, db } = logged();

    expect(await deliveriesRepository(db).dropOldCopies(BATCHES_OF_2)).toBe(5);
    expect(log.affected).toEqual([2, 2, 1]);
    const mails = await server.database.db
      .selectFrom('deliveries')
      .select(['target', 'subject', 'text_body', 'secret'])
      .where('account_id', '=', account)
      .where('stream', 'like', 'copy:%')
      .orderBy('id')
      .execute();
    const dropped = {
      target: null,
      subject: null,
      text_body: null,
      secret: null,
    };
    expect(mails).toEqual([
      dropped,
      dropped,
      dropped,
      dropped,
      dropped,
      {
        target: 'copy.6@example.com',
        subject: 'Sign in',
        text_body: 'The link',
        secret: 'whsec_kept',
      },
    ]);
  });

  it('the rows of mails sent or given up more than 30 days ago, never one still to send (issue 58)', async () => {
    const account = await accountId();
    // 1 to 3 sent and 4 given up 31 days ago; 5 sent 29 days ago; 6
    // queued 40 days ago and still pending.
    await sql`insert into deliveries (kind, channel, account_id, target,
                stream, payload, deadline_at, state, sent_at, dead_at,
                created_at, next_attempt_at)
      select 'account.signin', 'email', ${account}, 'rows.' || n || '@example.com',
             'rows:' || n, '{}'::jsonb, now() + interval '1 day',
             case when n = 4 then 'dead' when n = 6 then 'pending'
                  else 'sent' end,
             case when n in (1, 2, 3) then now() - interval '31 days'
                  when n = 5 then now() - interval '29 days' end,
             case when n = 4 then now() - interval '31 days' end,
             now() - interval '40 days',
             -- Not due: the service's own outbox worker leaves it alone.
             now() + interval '1 day'
        from generate_series(1, 6) as n`.execute(server.database.db);
    const { log, db } = logged();

    expect(await deliveriesRepository(db).deleteOld(BATCHES_OF_2)).toBe(4);
    expect(log.affected).toEqual([2, 2, 0]);
    const left = await server.database.db
      .selectFrom('deliveries')
      .select(['target', 'state'])
      .where('account_id', '=', account)
      .where('target', 'like', 'rows.%')
      .orderBy('id')
      .execute();
    expect(left).toEqual([
      { target: 'rows.5@example.com', state: 'sent' },
      { target: 'rows.6@example.com', state: 'pending' },
    ]);
  });

  it("the monitor's hours and incidents past their retention", async () => {
    const account = await accountId();
    const monitor = await server.database.db
      .insertInto('monitors')
      .values({ account_id: account, site_url: 'https://example.com' })
      .returning('id')
      .executeTakeFirstOrThrow();
    const now = new Date();
    const day = 86_400_000;
    const hour = 3_600_000;
    /** A whole hour, `days` days and `hours` hours before now. */
    const ago = (days: number, hours = 0) =>
      new Date(
        Math.floor((now.getTime() - days * day - hours * hour) / hour) * hour,
      );
    const pastHours = [1, 2, 3, 4, 5].map((n) => ago(HOURS_KEPT_DAYS + 1, n));
    await server.database.db
      .insertInto('monitor_hours')
      .values(
        [...pastHours, ago(HOURS_KEPT_DAYS - 1)].map((at) => ({
          monitor_id: monitor.id,
          hour: at,
          checks: 60,
          up: 60,
          median_ms: 10,
          slowest_ms: 20,
        })),
      )
      .execute();
    const endedDaysAgo = [1, 2, 3, 4, 5].map(() => INCIDENTS_KEPT_DAYS + 1);
    await server.database.db
      .insertInto('monitor_incidents')
      .values([
        ...[...endedDaysAgo, INCIDENTS_KEPT_DAYS - 1].map((days) => ({
          monitor_id: monitor.id,
          started_at: ago(days + 1),
          ended_at: ago(days),
          reason: { code: 'status' as const, status: 503 },
        })),
        // Still going on.
        {
          monitor_id: monitor.id,
          started_at: ago(INCIDENTS_KEPT_DAYS + 2),
          ended_at: null,
          reason: { code: 'status' as const, status: 503 },
        },
      ])
      .execute();
    const { log, db } = logged();

    expect(await monitorRepository(db).deleteOld(now, BATCHES_OF_2)).toEqual({
      hours: 5,
      incidents: 5,
    });
    expect(log.affected).toEqual([2, 2, 1, 2, 2, 1]);
    const hours = await server.database.db
      .selectFrom('monitor_hours')
      .select('hour')
      .where('monitor_id', '=', monitor.id)
      .execute();
    expect(hours).toEqual([{ hour: ago(HOURS_KEPT_DAYS - 1) }]);
    const incidents = await server.database.db
      .selectFrom('monitor_incidents')
      .select('ended_at')
      .where('monitor_id', '=', monitor.id)
      .orderBy('ended_at')
      .execute();
    expect(incidents).toEqual([
      { ended_at: ago(INCIDENTS_KEPT_DAYS - 1) },
      { ended_at: null },
    ]);
  });
});
