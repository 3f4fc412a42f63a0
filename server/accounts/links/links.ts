/**
 * What a magic link does (ADR-0096, ADR-0098, ADR-0099): reading it
 * changes nothing; its POST spends its token once and confirms the
 * address, or signs in.
 *
 * The owner's address wins over whoever signed up with it: while an
 * account is unconfirmed, the link that confirms it or signs in to it
 * ends every other session of the account and spends its unused one-time
 * tokens, so that a squatter who signed up with someone else's address is
 * signed out by the owner's first link. Each is one statement: the token's
 * spending and its effects commit together or not at all.
 */
import { sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import {
  accountView,
  lockAccount,
  SESSION_LIFETIME_DAYS,
  type AccountRow,
  type AccountView,
} from '../accounts';
import { secretHash } from '../secrets';
import { deleteInBatches, type BatchOptions } from '../../db/batchedWrites';
import { unlessUnavailable } from '../../db/unavailable';
import type { AccountsTables, MailKind } from '../tables';

/**
 * Another feature's write in the statement that confirms an address (the
 * monitor's, ADR-0120): the body of a data-modifying CTE, given a query
 * of the ids of the accounts the statement confirms (those unconfirmed
 * until it), returning nothing the statement reads.
 */
export type ConfirmationWrite = (
  confirmedAccountIds: RawBuilder<unknown>,
) => RawBuilder<unknown>;

/** A link's token as mailed: 32 random bytes, base64url (43 characters). */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** @returns whether `token` has the form of a magic link's token */
export function isLinkToken(token: unknown): token is string {
  return typeof token === 'string' && TOKEN.test(token);
}

/**
 * The start every link's POST shares, as CTEs of one statement: `spent`
 * (the token, spent if unused, unexpired and of this purpose), `was` (its
 * account as it was before the statement), and `ended`: if that account
 * was unconfirmed, its sessions but `keep`, and its unused one-time tokens
 * (`revoked`): the owner's address wins (ADR-0098); with `endUnproven`, its
 * unproven sessions too, confirmed or not (a sign-in link, ADR-0112). Both
 * links confirm an unconfirmed account, so the features' `writes` run
 * for it (`confirmed_0`, …: the site's watch resumes, ADR-0120).
 */
function spendLink(
  token: string,
  purpose: MailKind,
  keep: Buffer | null,
  {
    endUnproven,
    writes,
  }: { endUnproven: boolean; writes: readonly ConfirmationWrite[] },
): RawBuilder<unknown> {
  const newlyConfirmed = sql`select was.id from was
                              where was.confirmed_at is null`;
  const others = writes.map(
    (write, index) =>
      sql`,
${sql.raw(`confirmed_${index}`)} as (${write(newlyConfirmed)})`,
  );
  return sql`
with spent as (
  update link_tokens set used_at = now()
   where token_hash = ${secretHash(token)} and purpose = ${purpose}
     and used_at is null and expires_at > now()
  returning account_id),
was as (
  select accounts.id, accounts.confirmed_at
    from accounts join spent on accounts.id = spent.account_id),
ended as (
  update sessions set ended_at = now()
    from was
   where sessions.account_id = was.id
     and (was.confirmed_at is null
          or (${endUnproven} and sessions.proven_at is null))
     and sessions.ended_at is null
     and sessions.session_hash is distinct from ${keep}
  returning 1),
revoked as (
  update one_time_tokens set used_at = now()
    from was
   where one_time_tokens.account_id = was.id and was.confirmed_at is null
     and one_time_tokens.used_at is null
  returning 1)${others.length > 0 ? sql.join(others, sql``) : sql``}`;
}

/**
 * Runs a link's statement in a transaction that first locks the link's
 * account (ADR-0113; server/accounts/accounts.ts `lockAccount`), so that a
 * first sign-in's redeem running at the same moment either commits before it
 * (and its session is seen and ended) or after it (and finds its one-time
 * token revoked).
 */
async function withAccountLocked<T>(
  db: Kysely<AccountsTables>,
  token: string,
  run: (trx: Transaction<AccountsTables>) => Promise<T>,
): Promise<T | undefined> {
  return db.transaction().execute(async (trx) => {
    const locked = await lockAccount(
      trx,
      sql<string>`select account_id from link_tokens
                   where token_hash = ${secretHash(token)}`,
    );
    return locked === undefined ? undefined : run(trx);
  });
}

/** The statements about magic links, over one database. */
export function linksRepository(
  db: Kysely<AccountsTables>,
  writes: readonly ConfirmationWrite[] = [],
) {
  return {
    /**
     * Reads a link without changing anything (a `GET` or `HEAD`, which mail
     * scanners send).
     *
     * @returns while it is unused and unexpired, its purpose, the address
     *   of its account (which the continue page shows masked, ADR-0112) and
     *   the site it watches; undefined for a used, expired or unknown token
     */
    async linkOf(token: string): Promise<
      | {
          purpose: MailKind;
          email: string;
          /** The site the account watches (ADR-0123); null for none. */
          siteUrl: string | null;
        }
      | undefined
    > {
      if (!isLinkToken(token)) return undefined;
      return unlessUnavailable(() =>
        db
          .selectFrom('link_tokens')
          .innerJoin('accounts', 'accounts.id', 'link_tokens.account_id')
          .select([
            'link_tokens.purpose',
            'accounts.email',
            'accounts.site_url as siteUrl',
          ])
          .where('link_tokens.token_hash', '=', secretHash(token))
          .where('link_tokens.used_at', 'is', null)
          .where('link_tokens.expires_at', '>', sql<Date>`now()`)
          .executeTakeFirst(),
      );
    },

    /**
     * Confirms the address of a confirmation link's account (ADR-0098), and the
     * newsletter it asked for (double opt-in, ADR-0099). If the account was
     * unconfirmed until now, every session but the posting browser's ends:
     * whoever else holds one may have signed up with this address without
     * owning it.
     *
     * @param token the link's token
     * @param session the posting browser's session cookie, if any
     * @returns undefined for a used, expired or unknown link; otherwise
     *   whether the posting browser is signed in to that account
     */
    async confirm(
      token: string,
      session: string | undefined,
    ): Promise<{ signedInHere: boolean } | undefined> {
      if (!isLinkToken(token)) return undefined;
      const current = session === undefined ? null : secretHash(session);
      const result = await unlessUnavailable(() =>
        withAccountLocked(db, token, (trx) =>
          sql<{ confirmed: boolean; signed_in_here: boolean }>`
${spendLink(token, 'confirm', current, { endUnproven: false, writes })},
confirmed as (
  update accounts
     set confirmed_at = coalesce(accounts.confirmed_at, now()),
         newsletter_confirmed_at = case when accounts.newsletter
           then coalesce(accounts.newsletter_confirmed_at, now()) end
    from spent where accounts.id = spent.account_id
  returning accounts.id)
select exists (select 1 from confirmed) as confirmed,
       exists (select 1 from sessions join spent using (account_id)
                where sessions.session_hash = ${current}
                  and sessions.ended_at is null
                  and sessions.expires_at > now()) as signed_in_here`.execute(
            trx,
          ),
        ),
      );
      const row = result?.rows[0];
      return row?.confirmed ? { signedInHere: row.signed_in_here } : undefined;
    },

    /**
     * Signs in with a sign-in link: opens a session, as the first sign-in
     * does (ADR-0046). An unconfirmed account is confirmed by it (the link
     * reached the address), and every other session of it ends, with its
     * unused one-time tokens (ADR-0098). A confirmed account's other sessions
     * stay: signing in on a phone does not sign the laptop out. The
     * newsletter is not confirmed: whoever asked for it may not own the
     * address (ADR-0099).
     *
     * @param token the link's token
     * @param session the new session's secret (the cookie's value)
     * @returns the account, or undefined for a used, expired or unknown link
     */
    async signIn(
      token: string,
      session: string,
    ): Promise<AccountView | undefined> {
      if (!isLinkToken(token)) return undefined;
      const result = await unlessUnavailable(() =>
        withAccountLocked(db, token, (trx) =>
          sql<AccountRow>`
${spendLink(token, 'signin', null, { endUnproven: true, writes })},
confirmed as (
  update accounts set confirmed_at = coalesce(accounts.confirmed_at, now())
    from spent where accounts.id = spent.account_id
  returning accounts.id, accounts.name, accounts.email, accounts.site_url,
            accounts.confirmed_at, accounts.confirm_by),
opened as (
  insert into sessions (session_hash, account_id, expires_at, proven_at)
  select ${secretHash(session)}, account_id,
         now() + make_interval(days => ${SESSION_LIFETIME_DAYS}), now()
    from spent
  returning account_id)
select confirmed.id, confirmed.name, confirmed.email, confirmed.site_url,
       confirmed.confirmed_at, confirmed.confirm_by
  from confirmed join opened on opened.account_id = confirmed.id`.execute(trx),
        ),
      );
      const row = result?.rows[0];
      return row ? accountView(row) : undefined;
    },

    /**
     * Deletes the links' tokens past their expiry, used or not, which can
     * never be redeemed again (ADR-0089). In batches
     * (server/db/batchedWrites.ts); any instance may run it at any time.
     *
     * @param options.batchRows rows per statement (default 10,000)
     * @returns how many it deleted
     * @throws DatabaseUnavailableError when the database fails
     */
    deleteExpired(options: BatchOptions = {}): Promise<number> {
      return deleteInBatches(
        db,
        'link_tokens',
        sql`expires_at < now()`,
        options,
      );
    },
  };
}

export type LinksRepository = ReturnType<typeof linksRepository>;
