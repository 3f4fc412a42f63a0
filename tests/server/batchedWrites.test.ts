/**
 * Housekeeping's deletes and updates in batches (server/db/batchedWrites.ts;
 * issue 46): every statement touches at most `batchRows` rows, so that on
 * the embedded engine's one connection the requests run between them; the
 * batches go on until one comes back short, and take every matching row
 * and no other. Judged on a database of the run's engine, over the rate
 * limit's windows (a table with no foreign keys).
 */
import { sql, type KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  BATCH_ROWS,
  type BatchOptions,
  deleteInBatches,
  updateInBatches,
} from '../../server/db/batchedWrites';
import type { Database } from '../../server/db/database';
import { openServiceDatabase, type Schema } from '../../server/schema';
import { DatabaseUnavailableError } from '../../server/db/unavailable';
import { scratchDatabase } from '../../harness/page/scratchDatabase';
import { affectedRowsLog } from './support/affectedRows';

let database: Database<Schema>;

beforeAll(async () => {
  database = await openServiceDatabase(await scratchDatabase());
});

afterAll(() => database.close());

beforeEach(async () => {
  await database.db.deleteFrom('rate_limit_windows').execute();
});

/** Windows that ended a second ago: `count` of them, keyed `ended.{n}`. */
async function endedWindows(count: number, hits = 1) {
  await sql`insert into rate_limit_windows (key, hits, window_ends_at)
    select 'ended.' || n, ${hits}, now() - interval '1 second'
      from generate_series(1, ${count}) as n`.execute(database.db);
}

/** A window that ends in an hour, keyed `live`. */
async function liveWindow(hits = 1) {
  await database.db
    .insertInto('rate_limit_windows')
    .values({
      key: 'live',
      hits,
      window_ends_at: sql<Date>`now() + interval '1 hour'`,
    })
    .execute();
}

async function windows() {
  return database.db
    .selectFrom('rate_limit_windows')
    .select(['key', 'hits'])
    .orderBy('key')
    .execute();
}

const ENDED = sql`window_ends_at < now()`;

/**
 * Deletes the ended windows in batches, through a log of each statement's
 * rows.
 *
 * @returns what deleteInBatches answered, and the rows of each statement
 */
async function deleteEnded(options?: BatchOptions) {
  const log = affectedRowsLog();
  const deleted = await deleteInBatches(
    database.db.withPlugin(log.plugin),
    'rate_limit_windows',
    ENDED,
    options,
  );
  return { deleted, affected: log.affected };
}

describe('deleteInBatches', () => {
  it('deletes 5 matching rows in statements of at most 2 rows, until one comes back short, and leaves the others', async () => {
    await endedWindows(5);
    await liveWindow();
    const { deleted, affected } = await deleteEnded({ batchRows: 2 });

    expect(deleted).toBe(5);
    expect(affected).toEqual([2, 2, 1]);
    expect(await windows()).toEqual([{ key: 'live', hits: 1 }]);
  });

  it('runs one more statement after a full batch, which finds none', async () => {
    await endedWindows(4);
    const { deleted, affected } = await deleteEnded({ batchRows: 2 });

    expect(deleted).toBe(4);
    expect(affected).toEqual([2, 2, 0]);
    expect(await windows()).toEqual([]);
  });

  it('runs one statement when nothing matches', async () => {
    await liveWindow();
    const { deleted, affected } = await deleteEnded();

    expect(deleted).toBe(0);
    expect(affected).toEqual([0]);
    expect(await windows()).toEqual([{ key: 'live', hits: 1 }]);
  });

  it('takes 10,000 rows per statement by default', async () => {
    await endedWindows(10_001);
    const { deleted, affected } = await deleteEnded();

    expect(deleted).toBe(10_001);
    expect(affected).toEqual([10_000, 1]);
    expect(BATCH_ROWS).toBe(10_000);
  });

  it('raises DatabaseUnavailableError when a batch fails; the batches before it stay deleted', async () => {
    await endedWindows(5);
    let statements = 0;
    const failsSecond: KyselyPlugin = {
      transformQuery: (args) => {
        statements += 1;
        if (statements === 2) throw new Error('the connection was lost');
        return args.node;
      },
      transformResult: (args) => Promise.resolve(args.result),
    };

    await expect(
      deleteInBatches(
        database.db.withPlugin(failsSecond),
        'rate_limit_windows',
        ENDED,
        { batchRows: 2 },
      ),
    ).rejects.toThrow(DatabaseUnavailableError);
    expect(statements).toBe(2);
    expect(await windows()).toHaveLength(3);
  });

  it('raises DatabaseUnavailableError when the database refuses the statement', async () => {
    await expect(
      deleteInBatches(
        database.db,
        'rate_limit_windows',
        sql`no_such_column < now()`,
      ),
    ).rejects.toThrow(DatabaseUnavailableError);
  });

  it.each([0, -1, 1.5, Number.NaN])(
    'refuses a batch size of %s before any statement',
    async (batchRows) => {
      await endedWindows(1);
      const log = affectedRowsLog();

      await expect(
        deleteInBatches(
          database.db.withPlugin(log.plugin),
          'rate_limit_windows',
          ENDED,
          { batchRows },
        ),
      ).rejects.toThrow(RangeError);
      expect(log.affected).toEqual([]);
      expect(await windows()).toHaveLength(1);
    },
  );
});

describe('updateInBatches', () => {
  it('updates 5 matching rows in statements of at most 2 rows, and leaves the others', async () => {
    await endedWindows(5, 7);
    await liveWindow(3);
    const log = affectedRowsLog();

    const updated = await updateInBatches(
      database.db.withPlugin(log.plugin),
      'rate_limit_windows',
      sql`hits = 1`,
      sql`hits > 5`,
      { batchRows: 2 },
    );

    expect(updated).toBe(5);
    expect(log.affected).toEqual([2, 2, 1]);
    expect(await windows()).toEqual([
      { key: 'ended.1', hits: 1 },
      { key: 'ended.2', hits: 1 },
      { key: 'ended.3', hits: 1 },
      { key: 'ended.4', hits: 1 },
      { key: 'ended.5', hits: 1 },
      { key: 'live', hits: 3 },
    ]);
  });
});
