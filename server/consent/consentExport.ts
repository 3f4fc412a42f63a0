/**
 * `npm run consent:export -- <consent-id>`: one consent id's history
 * (ADR-0065), oldest first, one JSON object per line on stdout, for an auditor
 * or a data-subject request. It runs where the service runs, with plain Node:
 * `npm run build` bundles it beside the service
 * (`dist-server/consent-export.mjs`), so it needs no devDependency.
 *
 * It reads the database the service uses (`DATABASE_URL`, or the embedded
 * database in `DATA_DIR`, which only one process may hold: stop the
 * service first, or export from a copy of the directory) read-only: it
 * creates nothing, runs no migration, and every transaction is READ ONLY.
 *
 * Exit codes, as grep's: 0 when records were printed, 1 when the database
 * holds none for the id, 2 when it cannot say (a message on stderr): an id
 * that is not a UUID, a database it cannot read, or a `DATA_DIR` that holds
 * no database, which is no answer to a data-subject request.
 */
import { pathToFileURL } from 'node:url';
import { consentRecordsRepository } from './consentRecords';
import type { ConsentTables } from './tables';
import { UUID_PATTERN } from '../../contract/formats';
import { NoDatabaseError, openDatabase } from '../db/database';
import { databaseSettingsFrom, type ServerEnvironment } from '../db/settings';

/** An error's message, and its cause's (the driver's: "relation … does not exist"). */
function reason(error: unknown): string {
  const { message, cause } = error as Error;
  return cause instanceof Error ? `${message}: ${cause.message}` : message;
}

/**
 * Prints one consent id's records as JSON lines.
 *
 * @param args the command's arguments: one consent id (a UUID)
 * @param env where the database is (`DATABASE_URL` or `DATA_DIR`)
 * @param write where each line goes (stdout by default)
 * @returns the exit code: 0 printed, 1 no records, 2 usage error, a
 *   database it cannot read, or no database (its message written to
 *   stderr)
 */
export async function exportConsent(
  args: readonly string[],
  env: ServerEnvironment,
  write: (line: string) => void = (line) => process.stdout.write(line),
): Promise<number> {
  const [consentId] = args;
  if (
    args.length !== 1 ||
    consentId === undefined ||
    !UUID_PATTERN.test(consentId)
  ) {
    console.error('Usage: npm run consent:export -- <consent-id (a UUID)>');
    return 2;
  }
  let records;
  try {
    const database = await openDatabase<ConsentTables>(
      databaseSettingsFrom(env),
      undefined,
      { readOnly: true },
    );
    try {
      records = await consentRecordsRepository(database.db).history(consentId);
    } finally {
      await database.close();
    }
  } catch (error) {
    console.error(
      error instanceof NoDatabaseError
        ? `No database in ${error.dataDir}: set DATA_DIR (or DATABASE_URL) to where the service keeps its data.`
        : `Could not read the consent records: ${reason(error)}`,
    );
    return 2;
  }
  for (const record of records) write(`${JSON.stringify(record)}\n`);
  if (records.length === 0) console.error(`No records for ${consentId}.`);
  return records.length > 0 ? 0 : 1;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.exitCode = await exportConsent(process.argv.slice(2), process.env);
}
