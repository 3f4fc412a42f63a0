/**
 * Housekeeping's deletes (and the one update that clears columns) in
 * batches: each batch is one short autocommit statement over at most
 * `batchRows` rows, repeated until a batch comes back short. Never one
 * statement over every row that matches: the embedded engine serves every
 * request on its one connection, and a delete of a million rows would stop
 * them all until it ended; between two batches, the requests waiting for
 * the connection run.
 *
 * A batch takes its rows by their physical address (`ctid`, PostgreSQL
 * "System Columns"), so that any table, whatever its key, is batched the
 * same way, as `ctid = any(array(select ctid … limit n))` (a TID scan).
 * The condition is repeated on the outer statement, as server/db/dueClaim.ts
 * repeats its `due`: a row another instance changed in between is judged
 * again on its new version (PostgreSQL, "Transaction Isolation", Read
 * Committed), and left alone unless it still matches. Instances on one
 * PostgreSQL server may run the same batches at once: a row one deletes,
 * the other skips; its batch then comes back short and it stops, and the
 * next pass takes the rest.
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { unlessUnavailable } from './unavailable';

/**
 * Rows per batch statement by default: on the embedded engine a batch of
 * this size took about 26 ms (10,000 of 200,000 rows, one timestamp
 * condition), so a request waits at most about that long behind one, while
 * a million rows still take only 100 statements.
 */
export const BATCH_ROWS = 10_000;

/** The batch size of a call; a test passes a small one. */
export interface BatchOptions {
  /** At most this many rows per statement (a whole number ≥ 1). */
  batchRows?: number;
}

/**
 * Runs `action` (a DELETE or an UPDATE's head) over at most `batchRows` of
 * the rows of `table` that match `where`, until a statement affects fewer.
 *
 * @returns the rows affected, over every batch
 */
async function untilShort<DB>(
  db: Kysely<DB>,
  action: RawBuilder<unknown>,
  table: keyof DB & string,
  where: RawBuilder<unknown>,
  batchRows: number,
): Promise<number> {
  if (!Number.isSafeInteger(batchRows) || batchRows < 1) {
    throw new RangeError(`batchRows must be a whole number ≥ 1: ${batchRows}`);
  }
  const batch = sql`${action} where ctid = any(array(
    select ctid from ${sql.table(table)} where ${where} limit ${batchRows}))
    and (${where})`;
  let affected = 0;
  for (;;) {
    const result = await unlessUnavailable(() => batch.execute(db));
    const count = Number(result.numAffectedRows ?? 0);
    affected += count;
    if (count < batchRows) return affected;
  }
}

/**
 * Deletes the rows of `table` that match `where`, in batches (see the
 * module comment). The foreign keys' cascades run inside each batch's
 * statement.
 *
 * @param db the open database (server/db/database.ts)
 * @param table the table
 * @param where the condition, over the table's columns (unqualified)
 * @param options.batchRows rows per statement (default {@link BATCH_ROWS})
 * @returns how many rows it deleted
 * @throws RangeError when `batchRows` is not a whole number ≥ 1;
 *   DatabaseUnavailableError (server/db/unavailable.ts) when the database fails,
 *   the batches before it staying deleted
 */
export function deleteInBatches<DB>(
  db: Kysely<DB>,
  table: keyof DB & string,
  where: RawBuilder<unknown>,
  { batchRows = BATCH_ROWS }: BatchOptions = {},
): Promise<number> {
  const action = sql`delete from ${sql.table(table)}`;
  return untilShort(db, action, table, where, batchRows);
}

/**
 * Updates the rows of `table` that match `where`, in batches (see the
 * module comment). `set` must make `where` false for the rows it updates
 * (clear what `where` asks for), or the batches would never come back
 * short.
 *
 * @param db the open database (server/db/database.ts)
 * @param table the table
 * @param set the SET list, as `column = value, …`
 * @param where the condition, over the table's columns (unqualified)
 * @param options.batchRows rows per statement (default {@link BATCH_ROWS})
 * @returns how many rows it updated
 * @throws RangeError when `batchRows` is not a whole number ≥ 1;
 *   DatabaseUnavailableError (server/db/unavailable.ts) when the database fails,
 *   the batches before it staying updated
 */
export function updateInBatches<DB>(
  db: Kysely<DB>,
  table: keyof DB & string,
  set: RawBuilder<unknown>,
  where: RawBuilder<unknown>,
  { batchRows = BATCH_ROWS }: BatchOptions = {},
): Promise<number> {
  const action = sql`update ${sql.table(table)} set ${set}`;
  return untilShort(db, action, table, where, batchRows);
}
