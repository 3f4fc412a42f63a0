import { resolve } from 'node:path';

export const PROJECT_ROOT = resolve(import.meta.dirname, '../..');
/** Where the browser project's global setup builds the page. */
export const TEST_DIST_DIR = resolve(PROJECT_ROOT, 'dist-test');
