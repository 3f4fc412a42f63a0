/**
 * Vitest global setup of the projects on PostgreSQL: starts a server with
 * ./embeddedPostgres.ts for the run, points every scratch database
 * (harness/page/scratchDatabase.ts) at it, and stops it afterwards. The
 * variable set here reaches the test workers, which start after it.
 */
import { startEmbeddedPostgres } from './embeddedPostgres';
import { TEST_DATABASE_URL } from './scratchDatabase';

export default async function postgresSetup(): Promise<() => Promise<void>> {
  const server = await startEmbeddedPostgres();
  process.env[TEST_DATABASE_URL] = server.adminUrl;
  return () => server.stop();
}
