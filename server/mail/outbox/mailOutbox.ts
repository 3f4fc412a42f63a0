/**
 * The transactional outbox's repository ([D95](../../../docs/decisions.md#D95)): every
 * statement about `mail_outbox` and the mailed links' tokens they carry
 * (`link_tokens`). Routes queue mails here; the sender
 * (server/mail/outbox/mailSender.ts) claims, sends and marks them.
 *
 * A claim is one autocommit statement with a lease, never a transaction
 * held open while SMTP answers: the embedded engine has one connection,
 * and a transaction open over a send would stop every request meanwhile.
 */
import { createHash } from 'node:crypto';
import ipaddr from 'ipaddr.js';
import { sql, type Kysely, type QueryCreator } from 'kysely';
import type { AccountsTables, SignUpDatabase } from '../../accounts/index';
import type { RateLimitTables } from '../../rateLimit/index';
import {
  deleteInBatches,
  updateInBatches,
  type BatchOptions,
} from '../../db/batchedWrites';
import { unlessUnavailable } from '../../db/unavailable';
import { claimDue } from '../../db/dueClaim';
import { LINK_LIFETIMES } from './mailMessages';
import { countRequests } from '../../rateLimit/index';
import type { MailKind, MailTables } from '../tables';

/**
 * The tables the outbox's statements touch: its own, the accounts'
 * addresses a requested link mail is queued to, and the rate limit's
 * counts of such requests.
 */
type OutboxDatabase = MailTables & AccountsTables & RateLimitTables;

/**
 * The limits on mails someone can ask for ([D97](../../../docs/decisions.md#D97)), sign-in requests and
 * resends together, counted in the database (`rate_limit_windows`, by the
 * database's clock) so that every instance on it shares them. The
 * confirmation that a sign-up queues is not counted: an address has one
 * account, which queues it once.
 *
 * An address has a cooldown rather than an hourly budget, as django-allauth
 * has (`ACCOUNT_RATE_LIMITS` "confirm_email": one mail per key per
 * cooldown): a flood of requests naming an address gets it one mail and
 * costs its owner, who asks a minute later, a minute, not an hour (issue
 * 46). A day's ceiling bounds what a patient sender can make the address
 * receive; only mails the cooldown let through count against it, so a
 * flood within a minute costs one of the day's mails, not the day.
 */
export const MAIL_LIMITS = {
  /** The least time between two mails to one address (ms). */
  addressCooldownMs: 60 * 1000,
  /** Mails one address can be sent per {@link MAIL_LIMITS.addressDayMs}. */
  perAddressPerDay: 10,
  /** The day's window of an address (ms). */
  addressDayMs: 24 * 60 * 60 * 1000,
  /** Requests one client (an IPv4 address, an IPv6 /64) can make per window. */
  perClient: 10,
  /** The window of a client's requests (ms). */
  clientWindowMs: 60 * 60 * 1000,
} as const;

/**
 * Days a mail's row is kept after it was sent or given up ([D89](../../../docs/decisions.md#D89)): the
 * record that a mail of its kind went to its account, for a customer who
 * asks "did you alert me?", long after its copy is dropped (7 days), and
 * far longer than any limit's window reads back (a day).
 */
export const OUTBOX_ROWS_KEPT_DAYS = 30;

/** A mail the sender has claimed, with what composing it needs. */
export interface ClaimedMail {
  /** The row's id (a bigint, as text). */
  id: string;
  kind: MailKind;
  accountId: string;
  recipient: string;
  /** Sends tried, this one included. */
  attempts: number;
  createdAt: Date;
  /**
   * The account holder's name as it is now, or null while the account's
   * address is unconfirmed: a name typed by whoever signed up with an
   * address they may not own goes into no mail to it (issue 46).
   */
  name: string | null;
  /** The account's newsletter request, as it is now. */
  newsletter: boolean;
  /** The site the account watches, as it is now; null for none. */
  siteUrl: string | null;
}

/** A token the sender made for a claimed mail; only its hash is stored. */
export interface MintedToken {
  outboxId: string;
  kind: MailKind;
  accountId: string;
  tokenHash: Buffer;
}

/**
 * What was sent, as kept for 7 days: the subject and the plain-text part
 * (the HTML part says the same), the link's token left out.
 */
export interface SentCopy {
  subject: string;
  text: string;
}

/**
 * The rate-limit keys of an address ([D97](../../../docs/decisions.md#D97)): its cooldown's and its day's,
 * each with the address's SHA-256, so the address never sits in the
 * counters' table in clear, under a prefix no route's key has.
 *
 * @param email the address as typed; compared trimmed and in lower case,
 *   as the accounts' unique index compares it
 */
export function addressKeys(email: string): { cooldown: string; day: string } {
  const hash = createHash('sha256')
    .update(email.trim().toLowerCase(), 'utf8')
    .digest('hex');
  return {
    cooldown: `mail address cooldown ${hash}`,
    day: `mail address day ${hash}`,
  };
}

/**
 * The rate-limit key of a client ([D97](../../../docs/decisions.md#D97)): an IPv4 address as it is (an
 * IPv4-mapped IPv6 address as its IPv4 address, RFC 4291 §2.5.5.2), an
 * IPv6 address by its /64, the smallest network one subscriber is given
 * (RFC 6177), so that a client cannot step through its own addresses.
 *
 * @param address `request.ip`
 */
export function clientKey(address: string): string {
  const bare = address.split('%', 1)[0] ?? '';
  if (!ipaddr.isValid(bare)) return `mail client ${bare}`;
  const parsed = ipaddr.process(bare);
  if (parsed.kind() === 'ipv4') return `mail client ${parsed.toString()}`;
  const network = ipaddr.IPv6.networkAddressFromCIDR(`${parsed.toString()}/64`);
  return `mail client ${network.toString()}/64`;
}

/**
 * The mail's part of a sign-up (`app.accounts.onSignUp`): the mail that
 * confirms the address, queued in the outbox (D95) by the statement that
 * makes the account, so that an account never lacks its mail nor a mail
 * its account. A data-modifying CTE reading the account being made.
 *
 * @param statement the sign-up's statement so far
 * @returns it with the CTE `queued`
 */
export function queueConfirmation(
  statement: QueryCreator<SignUpDatabase<MailTables>>,
) {
  return statement.with('queued', (cte) =>
    cte
      .insertInto('mail_outbox')
      .columns(['kind', 'account_id', 'recipient'])
      .expression((eb) =>
        eb
          .selectFrom('account')
          .select([
            sql.lit('confirm').as('kind'),
            'account.id',
            'account.email',
          ]),
      ),
  );
}

/**
 * The repository over one database. Every function raises
 * {@link DatabaseUnavailableError} when the database fails.
 */
export function mailOutboxRepository(db: Kysely<OutboxDatabase>) {
  /** A row a sender may take: due, or left by a sender whose lease ended. */
  const due = sql`((mail_outbox.state = 'pending' and mail_outbox.next_attempt_at <= now())
    or (mail_outbox.state = 'sending' and mail_outbox.lease_until < now()))
    and mail_outbox.kind in ('confirm', 'signin')`;

  return {
    /**
     * Counts a request for a mail against {@link MAIL_LIMITS}, then queues
     * the mail if the address has an account (for `confirm`: an
     * unconfirmed one). In turn, each only once the one before passed:
     * the client's count (over its limit, nothing about the address is
     * counted or stored, so a client cannot fill the counters' table with
     * addresses; issue 46), the address's cooldown (one mail a minute),
     * the address's day (10 mails), and the `INSERT … SELECT` that queues
     * the mail. A known and an unknown address cost the same statements
     * ([D97](../../../docs/decisions.md#D97)): none of them asks whether the account exists before the last.
     *
     * @param request the address as typed, and the client's `request.ip`
     * @returns whether a mail was queued
     * @throws DatabaseUnavailableError when the database fails
     */
    async requestMail(request: {
      kind: MailKind;
      email: string;
      clientAddress: string;
    }): Promise<boolean> {
      /** Counts one request for a key; whether it is within `limit`. */
      const within = async (key: string, windowMs: number, limit: number) => {
        const [count] = await countRequests(db, [
          { key, requests: 1, windowMs },
        ]);
        return (count?.hits ?? Infinity) <= limit;
      };
      const address = addressKeys(request.email);
      if (
        !(await within(
          clientKey(request.clientAddress),
          MAIL_LIMITS.clientWindowMs,
          MAIL_LIMITS.perClient,
        )) ||
        // A window of one mail, begun by the mail it let through.
        !(await within(address.cooldown, MAIL_LIMITS.addressCooldownMs, 1)) ||
        !(await within(
          address.day,
          MAIL_LIMITS.addressDayMs,
          MAIL_LIMITS.perAddressPerDay,
        ))
      ) {
        return false;
      }
      const result = await unlessUnavailable(() =>
        db
          .insertInto('mail_outbox')
          .columns(['kind', 'account_id', 'recipient'])
          .expression((eb) =>
            eb
              .selectFrom('accounts')
              .select([eb.val(request.kind).as('kind'), 'id', 'email'])
              .where(sql`lower(email)`, '=', request.email.trim().toLowerCase())
              .$if(request.kind === 'confirm', (unconfirmed) =>
                unconfirmed.where('confirmed_at', 'is', null),
              ),
          )
          .executeTakeFirst(),
      );
      return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
    },

    /**
     * Takes up to `batch` mails to send, in one statement (the due-row
     * claim of server/db/dueClaim.ts, which the monitor shares): each is marked
     * `sending` with one more attempt and a lease. Rows another sender holds
     * are skipped, not waited for. The account's name comes only with a
     * confirmed address ({@link ClaimedMail.name}).
     *
     * @param leaseMs how long the claim holds before another sender may take
     *   the mail (a sender killed mid-send)
     */
    async claim(batch: number, leaseMs: number): Promise<ClaimedMail[]> {
      const rows = await claimDue<{
        id: string;
        kind: MailKind;
        account_id: string;
        recipient: string | null;
        attempts: number;
        created_at: Date;
        name: string | null;
        newsletter: boolean;
        site_url: string | null;
      }>(db, {
        table: 'mail_outbox',
        due,
        order: sql`mail_outbox.next_attempt_at`,
        set: sql`state = 'sending', attempts = mail_outbox.attempts + 1,
          lease_until = now() + make_interval(secs => ${leaseMs / 1000})`,
        join: {
          table: 'accounts',
          on: sql`accounts.id = mail_outbox.account_id`,
        },
        returning: sql`mail_outbox.id, mail_outbox.kind,
          mail_outbox.account_id, mail_outbox.recipient, mail_outbox.attempts,
          mail_outbox.created_at,
          case when accounts.confirmed_at is not null then accounts.name end as name,
          accounts.newsletter, accounts.site_url`,
        limit: batch,
      });
      return rows.flatMap((row) =>
        row.recipient === null
          ? []
          : [
              {
                id: String(row.id),
                kind: row.kind,
                accountId: row.account_id,
                recipient: row.recipient,
                attempts: row.attempts,
                createdAt: row.created_at,
                name: row.name,
                newsletter: row.newsletter,
                siteUrl: row.site_url,
              },
            ],
      );
    },

    /**
     * Stores the tokens of claimed mails, one live token per mail: a retry
     * replaces the token of an attempt that never arrived, but never one
     * that was spent ([D96](../../../docs/decisions.md#D96)). Each token expires {@link LINK_LIFETIMES} after
     * this statement.
     *
     * @returns the ids of the mails whose token is now the one given; a
     *   mail missing from it was delivered by an earlier attempt whose link
     *   has been used, and must not be sent again
     */
    async mint(tokens: readonly MintedToken[]): Promise<Set<string>> {
      if (tokens.length === 0) return new Set();
      const rows = await unlessUnavailable(() =>
        db
          .insertInto('link_tokens')
          .values(
            tokens.map((token) => ({
              token_hash: token.tokenHash,
              purpose: token.kind,
              account_id: token.accountId,
              outbox_id: token.outboxId,
              expires_at: sql<Date>`now() + ${LINK_LIFETIMES[token.kind].sql}::interval`,
            })),
          )
          .onConflict((conflict) =>
            conflict
              .column('outbox_id')
              .doUpdateSet({
                token_hash: sql`excluded.token_hash`,
                expires_at: sql`excluded.expires_at`,
              })
              .where('link_tokens.used_at', 'is', null),
          )
          .returning('outbox_id')
          .execute(),
      );
      // A bigint: text on a PostgreSQL server, a number from PGlite.
      return new Set(
        rows.flatMap((row) =>
          row.outbox_id === null ? [] : [String(row.outbox_id)],
        ),
      );
    },

    /**
     * Marks mails sent, each with its copy (none for a mail found already
     * delivered), in one statement: one commit for a batch, not one per
     * mail. A mail is marked only while its attempt still holds it (a
     * sender whose lease ended may not overwrite a newer attempt).
     */
    async markSent(
      mails: readonly {
        mail: Pick<ClaimedMail, 'id' | 'attempts'>;
        copy: SentCopy | undefined;
      }[],
      via: 'smtp' | 'file',
    ): Promise<void> {
      if (mails.length === 0) return;
      const rows = sql.join(
        mails.map(
          ({ mail, copy }) =>
            sql`(${mail.id}::bigint, ${mail.attempts}::integer, ${copy?.subject ?? null}::text, ${copy?.text ?? null}::text)`,
        ),
      );
      await unlessUnavailable(() =>
        sql`update mail_outbox
               set state = 'sent', sent_at = now(), lease_until = null,
                   delivered_via = ${via}, last_error = null,
                   subject = sent.subject, text_body = sent.text_body
              from (values ${rows}) as sent (id, attempts, subject, text_body)
             where mail_outbox.id = sent.id
               and mail_outbox.attempts = sent.attempts
               and mail_outbox.state = 'sending'`.execute(db),
      );
    },

    /**
     * After a send that failed: back to `pending`, due after `delayMs`; or
     * `failed` when `permanent`, or when the mail has waited longer than
     * `giveUpAfterMs` since it was queued.
     *
     * @param error what went wrong, as it may be stored (no address, no
     *   reply text), at most 200 characters
     * @returns the row's new state, or undefined when this attempt no
     *   longer held the mail
     */
    async markFailed(
      mail: Pick<ClaimedMail, 'id' | 'attempts'>,
      outcome: {
        error: string;
        permanent: boolean;
        delayMs: number;
        giveUpAfterMs: number;
      },
    ): Promise<'pending' | 'failed' | undefined> {
      const givingUp = sql<boolean>`${outcome.permanent} or created_at < now() - make_interval(secs => ${outcome.giveUpAfterMs / 1000})`;
      const row = await unlessUnavailable(() =>
        db
          .updateTable('mail_outbox')
          .set({
            state: sql<
              'pending' | 'failed'
            >`case when ${givingUp} then 'failed' else 'pending' end`,
            failed_at: sql<Date | null>`case when ${givingUp} then now() end`,
            next_attempt_at: sql<Date>`now() + make_interval(secs => ${outcome.delayMs / 1000})`,
            lease_until: null,
            last_error: outcome.error.slice(0, 200),
          })
          .where('id', '=', mail.id)
          .where('state', '=', 'sending')
          .where('attempts', '=', mail.attempts)
          .returning('state')
          .executeTakeFirst(),
      );
      return row?.state === 'failed' ? 'failed' : row ? 'pending' : undefined;
    },

    /**
     * At a sender's start: mails waiting for their next attempt are due now
     * (a restart retries what waits). With `orphaned`, mails left `sending`
     * are due too: on the embedded engine one process holds the data
     * directory ([D48](../../../docs/decisions.md#D48)), so such a mail's sender is dead.
     */
    async retryNow(orphaned: boolean): Promise<void> {
      await unlessUnavailable(() =>
        db
          .updateTable('mail_outbox')
          .set({
            state: 'pending',
            next_attempt_at: sql<Date>`now()`,
            lease_until: null,
          })
          .where((eb) =>
            eb.or([
              eb.and([
                eb('state', '=', 'pending'),
                eb('next_attempt_at', '>', sql<Date>`now()`),
              ]),
              ...(orphaned ? [eb('state', '=', 'sending')] : []),
            ]),
          )
          .execute(),
      );
    },

    /**
     * Drops the address, the copy and an alert's details of mails sent or
     * given up more than 7 days ago ([D89](../../../docs/decisions.md#D89)); the row stays, as the record that a mail of its
     * kind went to its account.
     *
     * In batches (server/db/batchedWrites.ts).
     *
     * @param options.batchRows rows per statement (default 10,000)
     * @returns how many rows it cleared
     */
    dropOldCopies(options: BatchOptions = {}): Promise<number> {
      return updateInBatches(
        db,
        'mail_outbox',
        sql`recipient = null, subject = null, text_body = null, details = null`,
        sql`recipient is not null
          and coalesce(sent_at, failed_at) < now() - interval '7 days'`,
        options,
      );
    },

    /**
     * Deletes the rows of mails sent or given up more than
     * {@link OUTBOX_ROWS_KEPT_DAYS} days ago ([D89](../../../docs/decisions.md#D89)); a mailed link's token
     * keeps working without its row (`link_tokens.outbox_id` is set
     * null). Rows still to send are never touched.
     *
     * In batches (server/db/batchedWrites.ts).
     *
     * @param options.batchRows rows per statement (default 10,000)
     * @returns how many rows it deleted
     */
    deleteOld(options: BatchOptions = {}): Promise<number> {
      return deleteInBatches(
        db,
        'mail_outbox',
        sql`state in ('sent', 'failed')
          and coalesce(sent_at, failed_at)
              < now() - make_interval(days => ${OUTBOX_ROWS_KEPT_DAYS})`,
        options,
      );
    },
  };
}

export type MailOutboxRepository = ReturnType<typeof mailOutboxRepository>;
