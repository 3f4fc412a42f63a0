/**
 * `npm run diagrams`: draws the machines from their objects and writes
 * `docs/diagrams/<name>.mmd` and the README's diagram blocks (see `scripts/docs/diagramFiles.ts`). Files already up to date
 * are left alone. With `--check` it writes nothing and exits 1 when any file
 * is stale (the unit test `tests/unit/diagrams.test.ts` checks the same).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { diagramFiles } from './diagramFiles';

const root = resolve(import.meta.dirname, '../..');
const check = process.argv.includes('--check');

const read = (path: string) =>
  existsSync(resolve(root, path))
    ? readFileSync(resolve(root, path), 'utf8')
    : '';

const stale = diagramFiles(read('README.md')).filter(
  ({ path, content }) => read(path) !== content,
);

if (check) {
  for (const { path } of stale) console.error(`stale: ${path}`);
  if (stale.length > 0) {
    console.error('Run `npm run diagrams` to regenerate the diagrams.');
    process.exit(1);
  }
  console.log('The diagrams are up to date.');
} else {
  for (const { path, content } of stale) {
    mkdirSync(dirname(resolve(root, path)), { recursive: true });
    writeFileSync(resolve(root, path), content);
    console.log(`wrote ${path}`);
  }
  if (stale.length === 0) console.log('The diagrams were already up to date.');
}
