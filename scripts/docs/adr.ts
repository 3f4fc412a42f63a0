/**
 * `npm run decisions`: writes the index of docs/adr/README.md from the
 * ADR files beside it (scripts/docs/adrIndex.ts). With `--check` it
 * writes nothing and exits 1 when the index is stale (the unit test
 * `tests/unit/adrIndex.test.ts` checks the same).
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { readAdrs, withAdrIndex } from './adrIndex';

const folder = resolve(import.meta.dirname, '../../docs/adr');
const path = join(folder, 'README.md');
const committed = readFileSync(path, 'utf8');
const files = readdirSync(folder)
  .filter((name) => name.endsWith('.md'))
  .map((name) => ({ name, text: readFileSync(join(folder, name), 'utf8') }));
const fresh = withAdrIndex(committed, readAdrs(files));

if (process.argv.includes('--check')) {
  if (fresh !== committed) {
    console.error('stale: docs/adr/README.md. Run `npm run decisions`.');
    process.exit(1);
  }
  console.log('The ADR index is up to date.');
} else if (fresh === committed) {
  console.log('The ADR index was already up to date.');
} else {
  writeFileSync(path, fresh);
  console.log('wrote docs/adr/README.md');
}
