/**
 * `npm run consent:export -- <consent-id>`: one consent id's history (D65
 * in docs/decisions.md), oldest first, one JSON object per line on stdout,
 * for an auditor or a data-subject request. It reads the database the
 * service uses (`DATABASE_URL`, or the embedded database in `DATA_DIR`,
 * which only one process may hold: stop the service first, or export from
 * a copy of the directory).
 *
 * Exit codes, as grep's: 0 when records were printed, 1 when the id has
 * none, 2 when the id is not a UUID or the database cannot be read (a
 * message on stderr).
 */
import { pathToFileURL } from 'node:url';
import { consentRecordsRepository } from '../server/consentRecords';
import { openDatabase } from '../server/database';
import {
  databaseSettingsFrom,
  type ServerEnvironment,
} from '../server/environment';

const UUID = /^[\da-f]{8}-[\da-f]{4}-[\da-f]{4}-[\da-f]{4}-[\da-f]{12}$/i;

/**
 * Prints one consent id's records as JSON lines.
 *
 * @param args the command's arguments: one consent id (a UUID)
 * @param env where the database is (`DATABASE_URL` or `DATA_DIR`)
 * @param write where each line goes (stdout by default)
 * @returns the exit code: 0 printed, 1 no records, 2 usage or database
 *   error (its message written to stderr)
 */
export async function exportConsent(
  args: readonly string[],
  env: ServerEnvironment,
  write: (line: string) => void = (line) => process.stdout.write(line),
): Promise<number> {
  const [consentId] = args;
  if (args.length !== 1 || consentId === undefined || !UUID.test(consentId)) {
    console.error('Usage: npm run consent:export -- <consent-id (a UUID)>');
    return 2;
  }
  let records;
  try {
    const database = await openDatabase(databaseSettingsFrom(env));
    try {
      records = await consentRecordsRepository(database.db).history(consentId);
    } finally {
      await database.close();
    }
  } catch (error) {
    console.error(
      `Could not read the consent records: ${(error as Error).message}`,
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
