/**
 * Vitest global setup of the projects on the embedded database: names the
 * initialised PGlite directory that every scratch database of the run
 * copies (harness/page/scratchDatabase.ts), made the first time. The
 * variable set here reaches the test workers, which start after it.
 */
import { cachedPgliteTemplate, TEST_PGLITE_TEMPLATE } from './scratchDatabase';

export default async function pgliteSetup(): Promise<void> {
  process.env[TEST_PGLITE_TEMPLATE] = await cachedPgliteTemplate();
}
