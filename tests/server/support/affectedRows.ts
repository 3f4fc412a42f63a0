/**
 * What each statement of a database did, for the tests of housekeeping's
 * batches (server/db/batchedWrites.ts): a Kysely plugin that records the rows
 * each statement run through it affected.
 */
import type { KyselyPlugin } from 'kysely';

/**
 * A log of affected rows and its plugin: run a repository over
 * `db.withPlugin(plugin)` and read `affected`.
 *
 * @returns `affected`, one count per statement in the order they ended
 *   (0 for one that reports none: the embedded engine's driver reports
 *   none for a statement that affected no row), and the plugin
 */
export function affectedRowsLog(): {
  affected: number[];
  plugin: KyselyPlugin;
} {
  const affected: number[] = [];
  return {
    affected,
    plugin: {
      transformQuery: (args) => args.node,
      transformResult: (args) => {
        affected.push(Number(args.result.numAffectedRows ?? 0));
        return Promise.resolve(args.result);
      },
    },
  };
}
