/**
 * Vitest global setup of the projects on the embedded database: makes the
 * initialised PGlite directory that every scratch database of the run
 * copies (harness/page/scratchDatabase.ts). The variable set here reaches
 * the test workers, which start after it.
 */
import { makePgliteTemplate, TEST_PGLITE_TEMPLATE } from './scratchDatabase';

export default async function pgliteSetup(): Promise<void> {
  process.env[TEST_PGLITE_TEMPLATE] = await makePgliteTemplate();
}
