/**
 * `npm run decisions`: writes the index at the top of docs/decisions.md
 * from the decisions themselves (scripts/docs/decisionsIndex.ts). With
 * `--check` it writes nothing and exits 1 when the index is stale (the
 * unit test `tests/unit/decisionsIndex.test.ts` checks the same).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { withDecisionsIndex } from './decisionsIndex';

const path = resolve(import.meta.dirname, '../../docs/decisions.md');
const committed = readFileSync(path, 'utf8');
const fresh = withDecisionsIndex(committed);

if (process.argv.includes('--check')) {
  if (fresh !== committed) {
    console.error('stale: docs/decisions.md. Run `npm run decisions`.');
    process.exit(1);
  }
  console.log('The decisions index is up to date.');
} else if (fresh === committed) {
  console.log('The decisions index was already up to date.');
} else {
  writeFileSync(path, fresh);
  console.log('wrote docs/decisions.md');
}
