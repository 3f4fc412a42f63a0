/**
 * The due-row claim of the service's leased workers (the mail outbox's
 * sender, the site monitor): one autocommit statement
 * takes up to `limit` rows that are due, marks them held (a lease, and
 * whatever else the caller sets) and returns them. Rows another instance
 * is claiming at the same moment are skipped, not waited for (`FOR UPDATE
 * SKIP LOCKED`), so that instances on one PostgreSQL server each take a
 * different row; a row whose holder died is due again once its lease ends
 * (the caller's `due` condition says so).
 *
 * Never a transaction held open over the work: the embedded engine has one
 * connection, and a transaction open over a send or a check would stop
 * every request meanwhile.
 */
import { sql, type QueryExecutorProvider, type RawBuilder } from 'kysely';
import { unlessUnavailable } from './unavailable';

/** One claim: which rows are due, in which order, and how to hold them. */
export interface DueClaim {
  /** The table; its key is `id`. */
  table: string;
  /**
   * The condition that makes a row due, over the table's qualified
   * columns: due now, or held by a claim whose lease has ended.
   */
  due: RawBuilder<unknown>;
  /** The order rows are taken in (the soonest due first). */
  order: RawBuilder<unknown>;
  /** The SET list that holds a row (a lease; a count of claims). */
  set: RawBuilder<unknown>;
  /** Another table the answer reads from, and how it joins the row. */
  join?: { table: string; on: RawBuilder<unknown> };
  /** The columns answered for each claimed row. */
  returning: RawBuilder<unknown>;
  /**
   * A first look, for a `due` whose costly part (a subquery per row)
   * should run only on the soonest rows: the first `size` rows by `order`
   * that `cheap` selects, sorted before `due` runs on them. Undefined:
   * `due` runs on every row, and the planner decides when to sort.
   */
  window?: { cheap: RawBuilder<unknown>; size: number } | undefined;
  /** At most this many rows. */
  limit: number;
}

/**
 * Claims due rows (see the module comment). The outer `due` is repeated
 * because a blocked update re-checks only its own WHERE on the row's new
 * version (PostgreSQL, "Transaction Isolation", Read Committed): a row
 * another instance claimed in between is no longer due, and is left alone.
 *
 * @returns the claimed rows, as `returning` names them; none when nothing
 *   is due
 * @throws DatabaseUnavailableError (server/db/unavailable.ts) when the database
 *   fails
 */
export async function claimDue<Row>(
  db: QueryExecutorProvider,
  claim: DueClaim,
): Promise<Row[]> {
  if (claim.limit < 1) return [];
  const table = sql.table(claim.table);
  const join = claim.join
    ? {
        from: sql`, ${sql.table(claim.join.table)}`,
        on: sql`and ${claim.join.on}`,
      }
    : { from: sql``, on: sql`` };
  // The rows are picked once, in a materialized CTE: as `id in (select …
  // limit n for update skip locked)`, the planner may run the subquery
  // again for each row the update visits, each run skipping the rows just
  // locked, and one claim took every due row, not `limit`
  // (tests/server/outbox/slowReceiver.test.ts, on both engines).
  // A window sorts the cheap rows first and runs `due` on the first
  // `size` of them only: with the planner's row estimates wrong (a table
  // never analyzed, or analyzed while no row was due), it ran the costly
  // part on every row before the sort (the outbox's claim of 20 among
  // 13,000 pending deliveries: 117 ms, 12 ms with a window of 200, on
  // PGlite; `npm run bench:alerts`).
  const window = claim.window
    ? sql`windowed as materialized (
             select ${table}.id from ${table}
              where ${claim.window.cheap}
              order by ${claim.order}
              limit ${claim.window.size}),`
    : sql``;
  const from = claim.window
    ? sql`windowed join ${table} on ${table}.id = windowed.id`
    : table;
  const { rows } = await unlessUnavailable(() =>
    sql<Row>`with ${window} picked as materialized (
             select ${table}.id from ${from}
              where ${claim.due}
              order by ${claim.order}
              limit ${claim.limit}
                for update of ${table} skip locked)
      update ${table} set ${claim.set}
        from picked ${join.from}
       where ${table}.id = picked.id
         and ${claim.due} ${join.on}
     returning ${claim.returning}`.execute(db),
  );
  return rows;
}
