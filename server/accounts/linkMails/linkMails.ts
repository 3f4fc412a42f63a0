/**
 * The link mails (ADR-0095, ADR-0096): the confirmation a sign-up queues, the
 * sign-in link and "Send the link again" a visitor asks for (counted
 * against the limits of ADR-0097), each queued as a delivery in the outbox of
 * notifications (server/outbox/, ADR-0129), and worded when it is sent, with
 * its link's token made then ({@link linkMailRenderer}).
 */
import { createHash } from 'node:crypto';
import ipaddr from 'ipaddr.js';
import { sql, type Kysely, type QueryCreator } from 'kysely';
import type { SignUpDatabase } from '../accounts';
import { newSecret, secretHash } from '../secrets';
import type { AccountsTables, MailKind } from '../tables';
import type { RateLimitTables } from '../../rateLimit/index';
import { unlessUnavailable } from '../../db/unavailable';
import {
  insertDeliveries,
  type ClaimedDelivery,
  type Notice,
  type OutboxTables,
  type Renderer,
} from '../../outbox/index';
import { LINK_LIFETIMES, linkNotice, watchedHost } from './linkMessages';
import { countRequests } from '../../rateLimit/index';

/**
 * The tables the link mails' statements touch: the accounts' addresses
 * and facts a mail is made from and the links' tokens, the outbox's
 * deliveries they are queued as (through its {@link insertDeliveries}),
 * and the rate limit's counts of requests.
 */
type LinkMailsDatabase = AccountsTables & OutboxTables & RateLimitTables;

/** The outbox's kinds of the link mails. */
export const LINK_MAIL_KINDS: Readonly<Record<MailKind, string>> = {
  confirm: 'account.confirm',
  signin: 'account.signin',
};

/** How long a link mail is retried before it is given up (ADR-0095). */
const LINK_MAIL_DEADLINE = '72 hours';

/**
 * The limits on mails someone can ask for (ADR-0097), sign-in requests and
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

/** What a link mail is made from, as its account is when it is sent. */
export interface AccountFacts {
  /**
   * The account holder's name, or null while the account's address is
   * unconfirmed: a name typed by whoever signed up with an address they
   * may not own goes into no mail to it (issue 46).
   */
  name: string | null;
  /** The account's newsletter request. */
  newsletter: boolean;
  /** The site it signed up with; null for none. */
  siteUrl: string | null;
}

/** A token made for a link mail's delivery; only its hash is stored. */
export interface MintedToken {
  /** The delivery that carries it (a bigint, as text). */
  deliveryId: string;
  kind: MailKind;
  accountId: string;
  tokenHash: Buffer;
}

/**
 * The rate-limit keys of an address (ADR-0097): its cooldown's and its day's,
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
 * The rate-limit key of a client (ADR-0097): an IPv4 address as it is (an
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
 * The link mails' part of a sign-up (`app.accounts.onSignUp`): the mail
 * that confirms the address, queued in the outbox (ADR-0095) by the statement
 * that makes the account, so that an account never lacks its mail nor a
 * mail its account. A data-modifying CTE reading the account being made.
 *
 * @param statement the sign-up's statement so far
 * @returns it with the CTE `queued`
 */
export function queueConfirmation(
  statement: QueryCreator<SignUpDatabase<OutboxTables>>,
) {
  return statement.with(
    'queued',
    () =>
      sql<{ account_id: string }>`(${insertDeliveries(sql`
    select ${sql.lit(LINK_MAIL_KINDS.confirm)}, 'email', account.id,
           null::bigint, account.email, null::text,
           'account:' || account.id || '|confirm', '{}'::jsonb,
           now() + ${sql.lit(LINK_MAIL_DEADLINE)}::interval
      from account`)})`,
  );
}

/**
 * The repository over one database. Every function raises
 * DatabaseUnavailableError (server/db/unavailable.ts) when the database
 * fails.
 */
export function linkMailsRepository(db: Kysely<LinkMailsDatabase>) {
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
     * (ADR-0097): none of them asks whether the account exists before the last.
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
      const { rows } = await unlessUnavailable(() =>
        sql<{ account_id: string }>`${insertDeliveries(sql`
    select ${LINK_MAIL_KINDS[request.kind]}, 'email', accounts.id,
           null::bigint, accounts.email, null::text,
           'account:' || accounts.id || '|' || ${request.kind}, '{}'::jsonb,
           now() + ${sql.lit(LINK_MAIL_DEADLINE)}::interval
      from accounts
     where lower(accounts.email) = ${request.email.trim().toLowerCase()}
       ${request.kind === 'confirm' ? sql`and accounts.confirmed_at is null` : sql``}`)}`.execute(
          db,
        ),
      );
      return rows.length > 0;
    },

    /**
     * What link mails are made from, for their accounts as they are now;
     * the name only once the address is proven.
     *
     * @returns account id → facts; an account deleted meanwhile is absent
     */
    async factsOf(
      accountIds: readonly string[],
    ): Promise<ReadonlyMap<string, AccountFacts>> {
      if (accountIds.length === 0) return new Map();
      const rows = await unlessUnavailable(() =>
        db
          .selectFrom('accounts')
          .select(['id', 'name', 'confirmed_at', 'newsletter', 'site_url'])
          .where('id', 'in', accountIds)
          .execute(),
      );
      return new Map(
        rows.map((row) => [
          row.id,
          {
            name: row.confirmed_at === null ? null : row.name,
            newsletter: row.newsletter,
            siteUrl: row.site_url,
          },
        ]),
      );
    },

    /**
     * Stores the tokens of claimed link mails, one live token per
     * delivery: a retry replaces the token of an attempt that never
     * arrived, but never one that was spent (ADR-0096). Each token expires
     * {@link LINK_LIFETIMES} after this statement.
     *
     * @returns the ids of the deliveries whose token is now the one given;
     *   a delivery missing from it was delivered by an earlier attempt
     *   whose link has been used, and must not be sent again
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
              outbox_id: token.deliveryId,
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
  };
}

export type LinkMailsRepository = ReturnType<typeof linkMailsRepository>;

/** The link mails' kind of an outbox kind (`account.signin` → `signin`). */
function mailKindOf(kind: string): MailKind | undefined {
  return kind === LINK_MAIL_KINDS.confirm
    ? 'confirm'
    : kind === LINK_MAIL_KINDS.signin
      ? 'signin'
      : undefined;
}

/**
 * The outbox's renderer of the link mails: for a batch, the accounts'
 * facts as they are now, and a new token for each mail, stored before it
 * is sent (the copy the outbox keeps leaves it out); a mail whose earlier
 * token was spent arrived already, and is `delivered`.
 *
 * @param context the product and `PUBLIC_URL`
 */
export function linkMailRenderer(
  repository: LinkMailsRepository,
  context: { productName: string; publicUrl: string },
): Renderer {
  return async (deliveries: readonly ClaimedDelivery[]) => {
    const known = deliveries.flatMap((delivery) => {
      const kind = mailKindOf(delivery.kind);
      return kind ? [{ delivery, kind, token: newSecret() }] : [];
    });
    const [facts, live] = await Promise.all([
      repository.factsOf([
        ...new Set(known.map(({ delivery }) => delivery.accountId)),
      ]),
      repository.mint(
        known.map(({ delivery, kind, token }) => ({
          deliveryId: delivery.id,
          kind,
          accountId: delivery.accountId,
          tokenHash: secretHash(token),
        })),
      ),
    ]);
    const notices = new Map<string, Notice | 'delivered'>();
    for (const { delivery, kind, token } of known) {
      const account = facts.get(delivery.accountId);
      if (!account) continue;
      if (!live.has(delivery.id)) {
        notices.set(delivery.id, 'delivered');
        continue;
      }
      notices.set(delivery.id, {
        ...linkNotice({
          kind,
          productName: context.productName,
          publicUrl: context.publicUrl,
          name: account.name,
          newsletter: account.newsletter,
          siteHost: watchedHost(account.siteUrl),
          token,
        }),
        redact: [token],
      });
    }
    return notices;
  };
}
