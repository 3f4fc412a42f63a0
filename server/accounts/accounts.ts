/**
 * The accounts repository: every query about accounts, their one-time
 * sign-in tokens and the sessions that redeem them (ADR-0044 to ADR-0046).
 * Routes call these functions and never write SQL.
 *
 * Secrets (the one-time token, the session cookie) leave this module only
 * towards the browser that owns them; the database keeps their SHA-256.
 */
import { randomUUID } from 'node:crypto';
import {
  CompiledQuery,
  sql,
  type Compilable,
  type Kysely,
  type QueryCreator,
  type RawBuilder,
  type Transaction,
} from 'kysely';
import { deleteInBatches, type BatchOptions } from '../db/batchedWrites';
import { DatabaseUnavailableError } from '../db/unavailable';
import type { AccountsTables } from './tables';
import { newSecret, secretHash } from './secrets';
import { UUID_PATTERN } from '../../contract/formats';

/** A one-time token lives this long (ADR-0045), in seconds. */
export const ONE_TIME_TOKEN_LIFETIME_S = 10 * 60;
/** A session lives this long, like the cookie that carries it (ADR-0046). */
export const SESSION_LIFETIME_DAYS = 365;

/** What the sign-up stores: the API's rules have already passed it. */
export interface NewAccountRecord {
  name: string;
  email: string;
  siteUrl: string | undefined;
  newsletter: boolean;
  campaign: string | undefined;
}

/** `data.one_time_auth` of the sign-up's answer (docs/contract.md "HTTP"). */
export interface OneTimeAuth {
  token: string;
  sid: string;
}

/** What the signed-in page shows of an account. */
export interface AccountView {
  /** The account's id (a uuid): what the page asks the monitor about. */
  id: string;
  name: string;
  email: string;
  siteUrl: string | null;
  /** Whether a magic link has proved the address (ADR-0098). */
  confirmed: boolean;
  /**
   * When the account is deleted unless its address is confirmed by then
   * (ADR-0098); null once confirmed, and for accounts made before confirmation
   * existed, which are kept.
   */
  deletedUnconfirmedAt: Date | null;
}

/** An account's row as the pages read it ({@link ACCOUNT_VIEW_COLUMNS}). */
export interface AccountRow {
  id: string;
  name: string;
  email: string;
  site_url: string | null;
  confirmed_at: Date | null;
  confirm_by: Date | null;
}

/** The columns of {@link AccountRow}. */
export const ACCOUNT_VIEW_COLUMNS = [
  'accounts.id',
  'accounts.name',
  'accounts.email',
  'accounts.site_url',
  'accounts.confirmed_at',
  'accounts.confirm_by',
] as const;

/** @returns what the pages show of an account's row */
export function accountView(row: AccountRow): AccountView {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    siteUrl: row.site_url,
    confirmed: row.confirmed_at !== null,
    deletedUnconfirmedAt: row.confirmed_at === null ? row.confirm_by : null,
  };
}

/** A CHECK constraint of the accounts table refused a value. */
export class AccountLimitError extends Error {
  constructor(
    /** The API field the constraint guards (`name`, `email`, `url`, `utm_campaign`). */
    readonly field: string,
  ) {
    super(`the database refused the ${field} (a CHECK constraint)`);
    this.name = 'AccountLimitError';
  }
}

// Constraint (./migrations/0001_accounts.ts) → the API field it guards.
const LIMIT_FIELDS: Readonly<Record<string, string>> = {
  accounts_name_length: 'name',
  accounts_email_length: 'email',
  accounts_site_url_length: 'url',
  accounts_campaign_length: 'utm_campaign',
};

/** SQLSTATE 23514, check_violation (PostgreSQL, Appendix A). */
const CHECK_VIOLATION = '23514';

/**
 * Turns a driver's error into one of ours. A CHECK constraint of the
 * accounts table names its field; anything else means the database did not
 * do its job. Neither carries the driver's `detail`, which quotes the row.
 */
function databaseError(error: unknown): Error {
  const { code, constraint } = (error ?? {}) as {
    code?: unknown;
    constraint?: unknown;
  };
  if (code === CHECK_VIOLATION && typeof constraint === 'string') {
    const field = LIMIT_FIELDS[constraint];
    if (field) return new AccountLimitError(field);
  }
  return new DatabaseUnavailableError(error);
}

async function query<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw databaseError(error);
  }
}

/**
 * Locks an account's row (`SELECT … FOR UPDATE`) inside a transaction, so
 * that the statements about its sessions run one after the other (ADR-0113):
 * on PostgreSQL every CTE of a statement shares one snapshot, so a link's
 * "end every other session" could not see a session that a simultaneous
 * redeem inserts. Whoever locks second starts its next statement after
 * the first has committed, and sees what it did.
 *
 * @param trx the transaction
 * @param accountId a query of one `account_id` (a token's)
 * @returns the account's id, or undefined when the query names none
 */
export async function lockAccount(
  trx: Transaction<AccountsTables>,
  accountId: RawBuilder<string>,
): Promise<string | undefined> {
  const { rows } = await sql<{ id: string }>`
select id from accounts where id = (${accountId}) for update`.execute(trx);
  return rows[0]?.id;
}

/**
 * Whether an account's address is confirmed (ADR-0098), as an SQL
 * expression for another feature's statement (the monitor checks only
 * confirmed owners' sites, ADR-0120), so that it never names this table
 * itself (ADR-0128). By the primary key: one index lookup per row.
 *
 * @param accountId an expression of the account's id (e.g.
 *   `sql.ref('monitors.account_id')`)
 * @returns a boolean expression
 */
export function accountConfirmed(
  accountId: RawBuilder<unknown>,
): RawBuilder<boolean> {
  return sql<boolean>`exists (select 1 from accounts
     where accounts.id = ${accountId} and accounts.confirmed_at is not null)`;
}

/**
 * An account's address once it is proven (ADR-0098), as an SQL expression for
 * another feature's statement (the alerts go only to a proven address,
 * ADR-0105, ADR-0129): the address, or null while it is unconfirmed.
 *
 * @param accountId an expression of the account's id
 * @returns a text expression, null for an unconfirmed or unknown account
 */
export function provenAddress(
  accountId: RawBuilder<unknown>,
): RawBuilder<string | null> {
  return sql<string | null>`(select accounts.email from accounts
     where accounts.id = ${accountId} and accounts.confirmed_at is not null)`;
}

const SLOT = Symbol('slot');

/**
 * A statement Kysely builds and compiles once, then runs with new values:
 * the sign-up's path spends no time building and compiling the same query
 * on every request (docs/performance.md, "The sign-up service"). `build`
 * receives a stand-in for each value, and must pass each one to Kysely as a
 * value (a parameter), never into SQL text.
 *
 * @param build the query, over stand-ins for `keys`
 * @param keys the names of the values each run binds
 * @returns a function from the values to the compiled query to execute
 */
function prepare<Values extends Record<string, unknown>, Row>(
  build: (values: Values) => Compilable<Row>,
  keys: readonly (keyof Values)[],
): (values: Values) => CompiledQuery<Row> {
  const slots = Object.fromEntries(keys.map((key) => [key, { [SLOT]: key }]));
  const compiled = build(slots as unknown as Values).compile();
  const bound = compiled.parameters.map((parameter) =>
    typeof parameter === 'object' && parameter !== null && SLOT in parameter
      ? (parameter[SLOT] as keyof Values)
      : undefined,
  );
  for (const key of keys) {
    if (!bound.includes(key)) {
      throw new Error(`${String(key)} is not a parameter of the statement`);
    }
  }
  return (values) =>
    CompiledQuery.raw(
      compiled.sql,
      compiled.parameters.map((parameter, index) => {
        const key = bound[index];
        return key === undefined ? parameter : values[key];
      }),
    ) as CompiledQuery<Row>;
}

/** What one sign-up statement binds. */
interface SignUpValues extends Record<string, unknown> {
  name: string;
  email: string;
  siteUrl: string | null;
  newsletter: boolean;
  campaign: string | null;
  tokenHash: Buffer;
  sid: string;
}

/** The account a sign-up's statement inserted, as its other writes read it. */
interface InsertedAccount {
  account: { id: string; email: string; site_url: string | null };
}

/**
 * The database as a sign-up's write sees it: the writing feature's own
 * tables `Tables`, and the CTE `account`.
 */
export type SignUpDatabase<Tables> = Tables & InsertedAccount;

/**
 * A row a sign-up writes in its statement beside the account and its
 * token: a data-modifying CTE, added to the statement, that reads the CTE
 * `account`, the account just inserted (none when the address is taken).
 * Every data-modifying CTE runs once, read or not (PostgreSQL, "WITH
 * Queries"). It returns the statement with its CTE (`statement.with(…)`),
 * which Kysely types with the CTE's name; nothing reads that name.
 */
export type SignUpWrite<Tables> = (
  statement: QueryCreator<SignUpDatabase<Tables>>,
) => unknown;

/**
 * The repository over one database.
 *
 * Every function raises {@link DatabaseUnavailableError} when the database
 * fails or cannot be reached, and nothing else but what its comment names.
 *
 * What a sign-up writes beside the account and its token, each feature
 * its own rows, is added with {@link onSignUp} (`app.accounts.onSignUp`)
 * before the first sign-up; the statement is built then, once.
 */
export function accountsRepository(db: Kysely<AccountsTables>) {
  const signUpWrites: SignUpWrite<AccountsTables>[] = [];
  // The account, its token and what else a sign-up writes in one
  // statement (see `create`), built at the first sign-up.
  let signUpStatement:
    ((values: SignUpValues) => CompiledQuery<{ sid: string }>) | undefined;
  const buildSignUpStatement = () =>
    prepare<SignUpValues, { sid: string }>(
      (values) => {
        const withAccount = db.with('account', (cte) =>
          cte
            .insertInto('accounts')
            .values({
              name: values.name,
              email: values.email,
              site_url: values.siteUrl,
              newsletter: values.newsletter,
              campaign: values.campaign,
            })
            .onConflict((conflict) =>
              conflict.expression(sql`lower(email)`).doNothing(),
            )
            .returning(['id', 'email', 'site_url']),
        );
        // The writes read `account` only; what they add to the statement's
        // tables nobody reads.
        const withWrites = signUpWrites.reduce<
          QueryCreator<SignUpDatabase<AccountsTables>>
        >(
          (statement, write) =>
            write(statement) as QueryCreator<SignUpDatabase<AccountsTables>>,
          withAccount,
        );
        return withWrites
          .insertInto('one_time_tokens')
          .columns(['token_hash', 'sid', 'account_id', 'expires_at'])
          .expression((eb) =>
            eb
              .selectFrom('account')
              .select([
                eb.val(values.tokenHash).as('token_hash'),
                eb.val(values.sid).as('sid'),
                'account.id',
                sql<Date>`now() + ${sql.lit(`${ONE_TIME_TOKEN_LIFETIME_S} seconds`)}::interval`.as(
                  'expires_at',
                ),
              ]),
          )
          .returning('sid');
      },
      [
        'name',
        'email',
        'siteUrl',
        'newsletter',
        'campaign',
        'tokenHash',
        'sid',
      ],
    );

  return {
    /**
     * Adds a feature's rows to every sign-up's statement (the monitor's
     * first site, accounts' own confirmation mail), so that they commit with the
     * account or not at all. The slot `app.accounts.onSignUp` offers.
     *
     * @throws Error once a sign-up has run: the statement is built
     */
    onSignUp<Tables>(write: SignUpWrite<Tables>): void {
      if (signUpStatement) {
        throw new Error(
          'onSignUp: the sign-up statement is built; add its writes before the first sign-up',
        );
      }
      // The write names its own feature's tables, which this feature's
      // type of the statement does not know (ADR-0128); a query creator
      // carries no schema at run time, so the statement is the same.
      signUpWrites.push(write as unknown as SignUpWrite<AccountsTables>);
    },

    /**
     * Creates the account, its one-time token and what the features add
     * with {@link onSignUp} (the mail that confirms its address, ADR-0095;
     * with a site, its monitor, due at once, ADR-0103) in one statement: the
     * unique index on `lower(email)` decides between simultaneous sign-ups
     * with one address, so exactly one of them creates an account and
     * queues a mail.
     *
     * @returns the token and sid to answer with, or `null` when an account
     *   with this address (in any case) exists
     * @throws AccountLimitError when a value breaks a CHECK constraint
     */
    async create(account: NewAccountRecord): Promise<OneTimeAuth | null> {
      const token = newSecret();
      const sid = randomUUID();
      const { rows } = await query(() =>
        db.executeQuery(
          (signUpStatement ??= buildSignUpStatement())({
            name: account.name,
            email: account.email,
            siteUrl: account.siteUrl ?? null,
            newsletter: account.newsletter,
            campaign: account.campaign ?? null,
            tokenHash: secretHash(token),
            sid,
          }),
        ),
      );
      const created = rows[0];
      return created ? { token, sid } : null;
    },

    /**
     * Redeems a one-time token and opens a session for its account, in one
     * statement: the token must match its sid, be unused and unexpired, and
     * is marked used by the same `UPDATE … WHERE used_at IS NULL` that
     * checks it, so two simultaneous redemptions cannot both win.
     *
     * @param auth the token and sid from `{product}Login`
     * @param session the new session's secret (the cookie's value)
     * @returns the account, or `null` when the token is unknown, used,
     *   expired or does not belong to the sid
     */
    async redeem(
      auth: OneTimeAuth,
      session: string,
    ): Promise<AccountView | null> {
      // A sid the database could not read as a uuid is no sid of ours.
      if (!UUID_PATTERN.test(auth.sid)) return null;
      const tokenHash = secretHash(auth.token);
      const row = await query(() =>
        db.transaction().execute(async (trx) => {
          // The account's row first (ADR-0113), as a magic link takes it: the
          // link's "end the other sessions" then sees this one.
          const locked = await lockAccount(
            trx,
            sql<string>`select account_id from one_time_tokens
                         where token_hash = ${tokenHash} and sid = ${auth.sid}`,
          );
          if (!locked) return undefined;
          return trx
            .with('redeemed', (cte) =>
              cte
                .updateTable('one_time_tokens')
                .set({ used_at: sql`now()` })
                .where('token_hash', '=', tokenHash)
                .where('sid', '=', auth.sid)
                .where('used_at', 'is', null)
                .where('expires_at', '>', sql<Date>`now()`)
                .returning('account_id'),
            )
            .with('opened', (cte) =>
              cte
                .insertInto('sessions')
                .columns(['session_hash', 'account_id', 'expires_at'])
                .expression((eb) =>
                  eb
                    .selectFrom('redeemed')
                    .select([
                      eb.val(secretHash(session)).as('session_hash'),
                      'redeemed.account_id',
                      sql<Date>`now() + make_interval(days => ${SESSION_LIFETIME_DAYS})`.as(
                        'expires_at',
                      ),
                    ]),
                )
                .returning('account_id'),
            )
            .selectFrom('accounts')
            .innerJoin('opened', 'opened.account_id', 'accounts.id')
            .select(ACCOUNT_VIEW_COLUMNS)
            .executeTakeFirst();
        }),
      );
      return row ? accountView(row) : null;
    },

    /**
     * @param session the `{product}_SESSION` cookie's value
     * @returns the account of an open, unexpired session, or `null`
     */
    async findBySession(session: string): Promise<AccountView | null> {
      const row = await query(() =>
        db
          .selectFrom('sessions')
          .innerJoin('accounts', 'accounts.id', 'sessions.account_id')
          .select(ACCOUNT_VIEW_COLUMNS)
          .where('sessions.session_hash', '=', secretHash(session))
          .where('sessions.ended_at', 'is', null)
          .where('sessions.expires_at', '>', sql<Date>`now()`)
          .executeTakeFirst(),
      );
      return row ? accountView(row) : null;
    },

    /**
     * The names of accounts whose address is proven, for a mail's
     * greeting (a name typed by whoever signed up with an address they
     * may not own goes into no mail to it, issue 46).
     *
     * @param accountIds the accounts' ids
     * @returns id → name for each proven account; null for the others
     */
    async provenNames(
      accountIds: readonly string[],
    ): Promise<ReadonlyMap<string, string | null>> {
      if (accountIds.length === 0) return new Map();
      const rows = await query(() =>
        db
          .selectFrom('accounts')
          .select(['id', 'name', 'confirmed_at'])
          .where('id', 'in', accountIds)
          .execute(),
      );
      return new Map(
        rows.map((row) => [
          row.id,
          row.confirmed_at === null ? null : row.name,
        ]),
      );
    },

    /**
     * Deletes what can never sign anyone in again (ADR-0089): one-time tokens
     * past their 10 minutes (used or not), and sessions that expired or
     * were ended (the mail deletes its links' expired tokens).
     * Nothing that still works is touched, so any instance may run it at
     * any time. In batches (server/db/batchedWrites.ts).
     *
     * @param options.batchRows rows per statement (default 10,000)
     * @returns how many one-time tokens and sessions it deleted
     * @throws DatabaseUnavailableError when the database fails
     */
    async deleteExpired(options: BatchOptions = {}): Promise<{
      tokens: number;
      sessions: number;
    }> {
      const [tokens, sessions] = await Promise.all([
        deleteInBatches(
          db,
          'one_time_tokens',
          sql`expires_at < now()`,
          options,
        ),
        deleteInBatches(
          db,
          'sessions',
          sql`expires_at < now() or ended_at is not null`,
          options,
        ),
      ]);
      return { tokens, sessions };
    },

    /**
     * Deletes the accounts still unconfirmed 7 days after their sign-up
     * (`confirm_by`, ADR-0098), with everything that is theirs (sessions,
     * tokens, mails: the foreign keys cascade), so that their address is
     * free again for its owner. Accounts made before confirmation existed
     * have no `confirm_by` and stay. In batches (server/db/batchedWrites.ts):
     * an account's cascades are deleted in its batch's statement.
     *
     * @param options.batchRows accounts per statement (default 10,000)
     * @returns how many accounts it deleted
     * @throws DatabaseUnavailableError when the database fails
     */
    deleteUnconfirmed(options: BatchOptions = {}): Promise<number> {
      return deleteInBatches(
        db,
        'accounts',
        sql`confirmed_at is null and confirm_by < now()`,
        options,
      );
    },

    /**
     * Ends every session of the account that `session` is signed in to,
     * `session` included ("Sign out everywhere", ADR-0112), and spends what
     * could open another: its unused sign-in links and one-time tokens
     * (issue 58; a confirmation link opens no session and stays). The
     * account's row is locked first (ADR-0113, {@link lockAccount}), so a
     * sign-in by link or a first sign-in running at the same moment
     * commits either before (and is ended) or after (and finds its token
     * spent). An ended, expired or unknown session ends nothing.
     *
     * @returns how many sessions it ended
     */
    async endEverySession(session: string): Promise<number> {
      return query(() =>
        db.transaction().execute(async (trx) => {
          const account = await lockAccount(
            trx,
            sql<string>`select account_id from sessions
                         where session_hash = ${secretHash(session)}
                           and ended_at is null and expires_at > now()`,
          );
          if (account === undefined) return 0;
          const { rows } = await sql<{ ended: number | string }>`
            with ended as (
              update sessions set ended_at = now()
               where account_id = ${account} and ended_at is null
              returning 1),
            links as (
              update link_tokens set used_at = now()
               where account_id = ${account} and purpose = 'signin'
                 and used_at is null and expires_at > now()),
            tokens as (
              update one_time_tokens set used_at = now()
               where account_id = ${account} and used_at is null)
            select count(*) as ended from ended`.execute(trx);
          return Number(rows[0]?.ended ?? 0);
        }),
      );
    },

    /**
     * Ends a session (signing out); a session already ended or unknown
     * stays as it is.
     */
    async endSession(session: string): Promise<void> {
      await query(() =>
        db
          .updateTable('sessions')
          .set({ ended_at: sql`now()` })
          .where('session_hash', '=', secretHash(session))
          .where('ended_at', 'is', null)
          .execute(),
      );
    },
  };
}

export type AccountsRepository = ReturnType<typeof accountsRepository>;
