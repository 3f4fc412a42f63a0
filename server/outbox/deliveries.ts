/**
 * The outbox's repository (ADR-0129): every statement about `deliveries`.
 * Features queue deliveries through {@link insertDeliveries} inside the
 * statement that causes them; the worker (./deliverer.ts) claims, sends
 * and marks them.
 *
 * - **In order.** A delivery is due only when no earlier delivery of its
 *   stream (a site's deliveries to one channel) is still pending or being
 *   sent: a "back up" never goes before its "down", even while the "down"
 *   waits for a retry. A dead delivery no longer holds its stream.
 * - **Claims** are one autocommit statement with a lease (the due-row claim
 *   of server/db/dueClaim.ts), never a transaction held open over a send.
 * - **A death** (the deadline passed, or a 410) is marked in a transaction
 *   with what the channel's owner feature does about it (its `onDead`).
 */
import { sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import {
  deleteInBatches,
  updateInBatches,
  type BatchOptions,
} from '../db/batchedWrites';
import { claimDue } from '../db/dueClaim';
import { unlessUnavailable } from '../db/unavailable';
import type { ChannelKind } from './notice';
import type { OutboxTables } from './tables';

/**
 * Days a delivery's row is kept after it was sent or died (ADR-0089): the
 * record that a notice went out, for a customer who asks "did you alert
 * me?", long after its copy is dropped (7 days).
 */
export const DELIVERY_ROWS_KEPT_DAYS = 30;

/** A delivery the worker has claimed, with what rendering and sending need. */
export interface ClaimedDelivery {
  /** The row's id (a bigint, as text). */
  id: string;
  kind: string;
  channel: ChannelKind;
  accountId: string;
  /** The owner feature's channel (a bigint, as text); null: none. */
  channelId: string | null;
  /** The address or URL. */
  target: string;
  /** A webhook's signing secret; null otherwise. */
  secret: string | null;
  payload: unknown;
  /** Sends tried, this one included. */
  attempts: number;
  createdAt: Date;
  deadlineAt: Date;
}

/** What was sent, as kept for 7 days: a mail's subject and plain text. */
export interface SentCopy {
  subject: string;
  text: string;
}

/** A delivery that died, as its owner feature hears of it. */
export interface DeadDelivery {
  id: string;
  kind: string;
  accountId: string;
  channelId: string | null;
  /** The last failure, in our words. */
  error: string;
  /** The receiver answered 410 Gone: the destination is no more. */
  gone: boolean;
}

/**
 * What a feature does, in the transaction that marks deliveries dead,
 * about those of its channels (mark the channel failing, queue a notice).
 */
export type DeadHandler = (
  trx: Transaction<OutboxTables>,
  dead: readonly DeadDelivery[],
) => Promise<void>;

/**
 * What a feature does, in the statement's transaction, when deliveries
 * to its channels arrived (a failing channel works again).
 */
export type SentHandler = (
  trx: Transaction<OutboxTables>,
  channelIds: readonly string[],
) => Promise<void>;

/**
 * A data-modifying CTE's body that queues deliveries, for the statement
 * that causes them (a state change, a dead channel's notice).
 *
 * @param rows a query of nine columns, in order: kind (text), channel
 *   (text: `email`, `webhook`, `slack`, `discord`, `ntfy`), account_id
 *   (uuid), channel_id (bigint or null), target (text), secret (text or
 *   null), stream (text), payload (jsonb), deadline_at (timestamptz)
 * @returns SQL returning `account_id` for each delivery queued
 */
export function insertDeliveries(
  rows: RawBuilder<unknown>,
): RawBuilder<unknown> {
  return sql`insert into deliveries (kind, channel, account_id, channel_id,
                                     target, secret, stream, payload,
                                     deadline_at)
    ${rows}
    returning account_id`;
}

/**
 * An SQL count of the deliveries of `kind` queued for an account since
 * `interval` ago (an SQL interval, `24 hours`), sent or not; a delivery
 * deleted unsent is not counted. For a feature's daily limits.
 */
export function deliveriesQueued(
  accountId: string,
  kind: string,
  interval: string,
): RawBuilder<number> {
  return sql<number>`(select count(*) from deliveries
    where deliveries.account_id = ${accountId}::uuid
      and deliveries.kind = ${kind}
      and deliveries.created_at > now() - ${interval}::interval)`;
}

/**
 * A data-modifying CTE's body that deletes the deliveries not yet sent
 * (pending) of the streams whose names start with one of `prefixes` (a
 * removed site's, `site:12|`), or of the channels `channelIds` selects
 * (a removed channel's). It returns nothing.
 */
export function unsentDeliveries(
  match:
    | { streamPrefixes: RawBuilder<unknown> }
    | { channelIds: RawBuilder<unknown> },
): RawBuilder<unknown> {
  const which =
    'streamPrefixes' in match
      ? sql`exists (select 1 from (${match.streamPrefixes}) as prefix (value)
                     where starts_with(deliveries.stream, prefix.value))`
      : sql`deliveries.channel_id in (${match.channelIds})`;
  return sql`delete from deliveries where state = 'pending' and ${which}`;
}

/**
 * The outbox's lanes (ADR-0130): mails, sent through our own SMTP pool, and
 * POSTs, each a wait on someone else's receiver. Each is claimed apart,
 * so that neither waits behind the other.
 */
export type Lane = 'mail' | 'http';

/** The lane a channel's deliveries are claimed in. */
export function laneOf(channel: ChannelKind): Lane {
  return channel === 'email' ? 'mail' : 'http';
}

/** A lane's deliveries, in SQL ({@link laneOf}'s rule). */
function inLane(lane: Lane): RawBuilder<unknown> {
  return lane === 'mail'
    ? sql`deliveries.channel = 'email'`
    : sql`deliveries.channel <> 'email'`;
}

/**
 * Pending and due in its lane, before its stream is looked at (the claim's
 * window); the lane's partial index (`deliveries_due_mail`,
 * `deliveries_due_http`) holds these rows in deadline order.
 */
function pendingDue(lane: Lane): RawBuilder<unknown> {
  return sql`deliveries.state = 'pending' and ${inLane(lane)}
    and deliveries.next_attempt_at <= now()`;
}

/**
 * The statistics target of the outbox's own refresh of its statistics
 * (`refreshStatistics`): PostgreSQL's default is 100.
 */
const REFRESH_STATISTICS_TARGET = 10;

/**
 * The claim's first window (rows): the soonest due deliveries whose
 * streams it looks at. A claim that comes back short (the window's rows
 * wait for earlier ones of their streams, or fewer are due) looks 4 times
 * further next time, up to every row; a full claim starts again here.
 */
const CLAIM_WINDOW = 200;

/**
 * A row a worker may take: pending, due, in its lane, and first in its
 * stream. A row left `sending` by a worker whose lease ended is made
 * pending again by `reclaimExpired` first, so that the claim reads one
 * partial index in its order.
 */
function due(lane: Lane): RawBuilder<unknown> {
  return sql`${pendingDue(lane)}
  and not exists (select 1 from deliveries as earlier
                   where earlier.stream = deliveries.stream
                     and earlier.id < deliveries.id
                     and earlier.state in ('pending', 'sending'))`;
}

/**
 * The repository over one database. Every function raises
 * DatabaseUnavailableError (server/db/unavailable.ts) when the database
 * fails.
 */
export function deliveriesRepository(db: Kysely<OutboxTables>) {
  const deadHandlers: DeadHandler[] = [];
  /** How far each lane's next claim looks (see {@link CLAIM_WINDOW}); Infinity: every row. */
  const windows: Record<Lane, number> = {
    mail: CLAIM_WINDOW,
    http: CLAIM_WINDOW,
  };
  const sentHandlers: SentHandler[] = [];

  return {
    /** Adds what a feature does about its dead deliveries (see {@link DeadHandler}). */
    onDead(handler: DeadHandler): void {
      deadHandlers.push(handler);
    },

    /** Adds what a feature does when deliveries to its channels arrive. */
    onSent(handler: SentHandler): void {
      sentHandlers.push(handler);
    },

    /**
     * Takes up to `limit` due deliveries, first in their streams, in one
     * statement: each is marked `sending` with one more attempt and a
     * lease. Rows another worker holds are skipped, not waited for.
     *
     * The earliest deadline first (ADR-0130): an alert, which must arrive
     * within the hour, goes before the link mails queued ahead of it
     * (three days), so that an incident is not queued behind a sign-up
     * rush; among equal deadlines, the first queued first.
     *
     * @param leaseMs how long the claim holds before another worker may
     *   take the delivery (a worker killed mid-send)
     * @param lane mails or POSTs
     */
    async claim(
      limit: number,
      leaseMs: number,
      lane: Lane,
    ): Promise<ClaimedDelivery[]> {
      const window = windows[lane];
      const rows = await claimDue<{
        id: string | number;
        kind: string;
        channel: ChannelKind;
        account_id: string;
        channel_id: string | number | null;
        target: string | null;
        secret: string | null;
        payload: unknown;
        attempts: number;
        created_at: Date;
        deadline_at: Date;
      }>(db, {
        table: 'deliveries',
        due: due(lane),
        order: sql`deliveries.deadline_at, deliveries.id`,
        window: Number.isFinite(window)
          ? { cheap: pendingDue(lane), size: Math.max(window, 10 * limit) }
          : undefined,
        set: sql`state = 'sending', attempts = deliveries.attempts + 1,
          lease_until = now() + make_interval(secs => ${leaseMs / 1000})`,
        returning: sql`deliveries.id, deliveries.kind, deliveries.channel,
          deliveries.account_id, deliveries.channel_id, deliveries.target,
          deliveries.secret, deliveries.payload, deliveries.attempts,
          deliveries.created_at, deliveries.deadline_at`,
        limit,
      });
      windows[lane] =
        rows.length >= limit
          ? CLAIM_WINDOW
          : window >= 100 * CLAIM_WINDOW
            ? Infinity
            : window * 4;
      return rows.flatMap((row) =>
        row.target === null
          ? []
          : [
              {
                id: String(row.id),
                kind: row.kind,
                channel: row.channel,
                accountId: row.account_id,
                channelId:
                  row.channel_id === null ? null : String(row.channel_id),
                target: row.target,
                secret: row.secret,
                payload: row.payload,
                attempts: row.attempts,
                createdAt: row.created_at,
                deadlineAt: row.deadline_at,
              },
            ],
      );
    },

    /**
     * Marks deliveries sent, each with its copy (a mail's), in one
     * statement, and runs the `onSent` handlers for their channels in its
     * transaction. A delivery is marked only while its attempt still holds
     * it (a worker whose lease ended may not overwrite a newer attempt).
     *
     * @returns whether a marked delivery's stream has one pending after it,
     *   now due (a "back up" behind its "down"): the worker looks for it at
     *   once rather than at its next poll
     */
    async markSent(
      sent: readonly {
        delivery: Pick<ClaimedDelivery, 'id' | 'attempts'>;
        copy: SentCopy | undefined;
        status: number | undefined;
        via: 'smtp' | 'file' | 'http' | undefined;
      }[],
    ): Promise<boolean> {
      if (sent.length === 0) return false;
      const rows = sql.join(
        sent.map(
          ({ delivery, copy, status, via }) =>
            sql`(${delivery.id}::bigint, ${delivery.attempts}::integer, ${copy?.subject ?? null}::text, ${copy?.text ?? null}::text, ${status ?? null}::smallint, ${via ?? null}::text)`,
        ),
      );
      return unlessUnavailable(() =>
        db.transaction().execute(async (trx) => {
          const { rows: marked } = await sql<{
            channel_id: string | number | null;
            followed: boolean;
          }>`update deliveries
                 set state = 'sent', sent_at = now(), lease_until = null,
                     last_error = null, last_status = sent.status,
                     delivered_via = sent.via,
                     subject = sent.subject, text_body = sent.text_body
                from (values ${rows}) as sent (id, attempts, subject, text_body, status, via)
               where deliveries.id = sent.id
                 and deliveries.attempts = sent.attempts
                 and deliveries.state = 'sending'
              returning deliveries.channel_id,
                        exists (select 1 from deliveries as later
                                 where later.stream = deliveries.stream
                                   and later.id > deliveries.id
                                   and later.state = 'pending') as followed`.execute(
            trx,
          );
          const followed = marked.some((row) => row.followed);
          const channelIds = [
            ...new Set(
              marked.flatMap((row) =>
                row.channel_id === null ? [] : [String(row.channel_id)],
              ),
            ),
          ];
          if (channelIds.length > 0) {
            for (const handler of sentHandlers) await handler(trx, channelIds);
          }
          return followed;
        }),
      );
    },

    /**
     * After a send that failed: back to `pending`, due after `delayMs`;
     * or dead when `gone`, or when the next attempt would come after the
     * delivery's deadline. A death runs the `onDead` handlers in the same
     * transaction.
     *
     * @param failure our words for what went wrong (no remote text), at
     *   most 200 characters; the HTTP status, if one was answered
     * @returns the row's new state, or undefined when this attempt no
     *   longer held the delivery
     */
    async markFailed(
      delivery: Pick<
        ClaimedDelivery,
        'id' | 'attempts' | 'kind' | 'accountId' | 'channelId'
      >,
      failure: {
        error: string;
        status: number | undefined;
        gone: boolean;
        delayMs: number;
      },
    ): Promise<'pending' | 'dead' | undefined> {
      const error = failure.error.slice(0, 200);
      const dies = sql<boolean>`(${failure.gone} or now() + make_interval(secs => ${failure.delayMs / 1000}) > deadline_at)`;
      return unlessUnavailable(() =>
        db.transaction().execute(async (trx) => {
          const row = await trx
            .updateTable('deliveries')
            .set({
              state: sql<
                'pending' | 'dead'
              >`case when ${dies} then 'dead' else 'pending' end`,
              dead_at: sql<Date | null>`case when ${dies} then now() end`,
              next_attempt_at: sql<Date>`now() + make_interval(secs => ${failure.delayMs / 1000})`,
              lease_until: null,
              last_error: error,
              last_status: failure.status ?? null,
            })
            .where('id', '=', delivery.id)
            .where('state', '=', 'sending')
            .where('attempts', '=', delivery.attempts)
            .returning('state')
            .executeTakeFirst();
          if (row?.state !== 'dead') return row ? 'pending' : undefined;
          const dead: DeadDelivery = {
            id: delivery.id,
            kind: delivery.kind,
            accountId: delivery.accountId,
            channelId: delivery.channelId,
            error,
            gone: failure.gone,
          };
          for (const handler of deadHandlers) await handler(trx, [dead]);
          return 'dead';
        }),
      );
    },

    /**
     * Gives claimed deliveries back, due at once, their attempt uncounted
     * (a stop, or a send that could not start in time).
     */
    async release(
      deliveries: readonly Pick<ClaimedDelivery, 'id' | 'attempts'>[],
    ): Promise<void> {
      if (deliveries.length === 0) return;
      const rows = sql.join(
        deliveries.map(
          (delivery) =>
            sql`(${delivery.id}::bigint, ${delivery.attempts}::integer)`,
        ),
      );
      await unlessUnavailable(() =>
        sql`update deliveries
               set state = 'pending', lease_until = null,
                   attempts = deliveries.attempts - 1,
                   next_attempt_at = now()
              from (values ${rows}) as given (id, attempts)
             where deliveries.id = given.id
               and deliveries.attempts = given.attempts
               and deliveries.state = 'sending'`.execute(db),
      );
    },

    /**
     * Makes the deliveries whose worker's lease ended (a worker killed
     * mid-send, another instance's) pending again, due at once, their
     * attempt counted. One statement over the `deliveries_leased` index.
     *
     * @returns how many it made pending
     */
    async reclaimExpired(): Promise<number> {
      const result = await unlessUnavailable(() =>
        db
          .updateTable('deliveries')
          .set({
            state: 'pending',
            next_attempt_at: sql<Date>`now()`,
            lease_until: null,
          })
          .where('state', '=', 'sending')
          .where('lease_until', '<', sql<Date>`now()`)
          .executeTakeFirst(),
      );
      return Number(result.numUpdatedRows);
    },

    /**
     * Refreshes the planner's statistics of `deliveries` (`ANALYZE`), so
     * that a claim of a backlog reads its lane's index in order and joins
     * its rows by key (ADR-0130): PGlite has no autovacuum, and
     * PostgreSQL's comes long after a backlog has formed. Skipped when
     * the table's lock is held (`SKIP_LOCKED`: an autovacuum at work would
     * hold the claim that asked until it ends).
     *
     * At a statistics target of {@link REFRESH_STATISTICS_TARGET} rather
     * than the server's (PostgreSQL's default is 100): ANALYZE's sample
     * grows with the largest target ("ANALYZE", Notes), 300 rows per unit
     * (analyze.c, `std_typanalyze`), so 3,000 rows instead of 30,000. A
     * claim needs the share of pending rows and the lanes' sizes, which
     * so small a sample measures well: after it, claims of a backlog cost
     * what they cost after a full analyze, and the analyze itself about a
     * tenth (`npm run bench:claim`). On PGlite it runs on the service's
     * own thread, which no request has while it runs.
     */
    async refreshStatistics(): Promise<void> {
      await unlessUnavailable(() =>
        db.transaction().execute(async (trx) => {
          await sql`set local default_statistics_target = ${sql.lit(REFRESH_STATISTICS_TARGET)}`.execute(
            trx,
          );
          await sql`analyze (skip_locked) deliveries`.execute(trx);
        }),
      );
    },

    /**
     * At a worker's start: deliveries waiting for their next attempt are
     * due now (a restart retries what waits). With `orphaned`, those left
     * `sending` are due too: on the embedded engine one process holds the
     * data directory (ADR-0048), so their worker is dead.
     */
    async retryNow(orphaned: boolean): Promise<void> {
      await unlessUnavailable(() =>
        db
          .updateTable('deliveries')
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
     * Drops the target, the secret and the copy of deliveries ended more
     * than 7 days ago (ADR-0089); the row stays, as the record that a notice of
     * its kind went to its account. In batches (server/db/batchedWrites.ts).
     *
     * @returns how many rows it cleared
     */
    dropOldCopies(options: BatchOptions = {}): Promise<number> {
      return updateInBatches(
        db,
        'deliveries',
        sql`target = null, secret = null, subject = null, text_body = null`,
        sql`target is not null and state in ('sent', 'dead')
          and coalesce(sent_at, dead_at) < now() - interval '7 days'`,
        options,
      );
    },

    /**
     * Deletes the rows of deliveries ended more than
     * {@link DELIVERY_ROWS_KEPT_DAYS} days ago (ADR-0089); rows still to send
     * are never touched. In batches.
     *
     * @returns how many rows it deleted
     */
    deleteOld(options: BatchOptions = {}): Promise<number> {
      return deleteInBatches(
        db,
        'deliveries',
        sql`state in ('sent', 'dead')
          and coalesce(sent_at, dead_at)
              < now() - make_interval(days => ${DELIVERY_ROWS_KEPT_DAYS})`,
        options,
      );
    },
  };
}

export type DeliveriesRepository = ReturnType<typeof deliveriesRepository>;
