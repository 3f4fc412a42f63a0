/**
 * What the service deletes once it has expired (issue 35; D89): one-time
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
import {
  accountsRepository,
  newSecret,
  secretHash,
} from '../../server/accounts';
import { HOUSEKEEPING_INTERVAL_MS } from '../../server/app';
import { consentRecordsRepository } from '../../server/consentRecords';
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
  const repository = accountsRepository(server.database.db);
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
  // Its one-time token, used, is kept for its 10 minutes (D89): it must
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

/** A mailed link's token for an account, expiring `expiresIn` from now. */
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

describe('mailed links', () => {
  it('are deleted once expired; live ones stay', async () => {
    const { email } = await newAccountWithAddress();
    const expired = await linkToken(email, '-1 second');
    const live = await linkToken(email, '15 minutes');
    const deleted = await accountsRepository(app.database.db).deleteExpired();
    expect(deleted.links).toBeGreaterThanOrEqual(1);
    expect(await linkCount(expired)).toBe(0);
    expect(await linkCount(live)).toBe(1);
  });
});

describe('accounts never confirmed (D98)', () => {
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
      .selectFrom('mail_outbox')
      .select('id')
      .where('recipient', '=', email)
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
