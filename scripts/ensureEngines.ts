/**
 * Run before a browser suite: finds the engines named on the command line
 * (`chromium` for `npm test`, `firefox webkit` for `npm run test:engines`;
 * all three when none is named) with harness/engines.ts, installs the
 * Debian packages of any that is missing when this process may (root with
 * apt-get), or fails with a message that says what to do. Before that, it
 * stops when the suite would run on another Node.js than the pinned one
 * (harness/run/pinnedRuntime.ts).
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import {
  ENGINE_PACKAGES,
  ENGINES,
  findEngine,
  missingEngineMessage,
  type Engine,
} from '../harness/engines';
import { exitUnlessPinnedRuntime } from '../harness/run/pinnedRuntime';

exitUnlessPinnedRuntime(`npm run ${process.env.npm_lifecycle_event ?? 'test'}`);

const named = process.argv.slice(2);
const unknown = named.filter(
  (name) => !(ENGINES as readonly string[]).includes(name),
);
if (unknown.length > 0) {
  console.error(
    `Unknown engine ${unknown.join(', ')}: name ${ENGINES.join(', ')}.`,
  );
  process.exit(2);
}
const wanted: readonly Engine[] =
  named.length > 0
    ? ENGINES.filter((engine) => named.includes(engine))
    : ENGINES;

function missing(): Engine[] {
  return wanted.filter((engine) => {
    try {
      findEngine(engine);
      return false;
    } catch {
      return true;
    }
  });
}

let absent = missing();
if (
  absent.length > 0 &&
  process.getuid?.() === 0 &&
  existsSync('/usr/bin/apt-get')
) {
  const packages = absent.flatMap((engine) => ENGINE_PACKAGES[engine]);
  console.log(
    `Missing ${absent.join(', ')}: installing ${packages.join(' ')}…`,
  );
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update'], { stdio: 'inherit', env });
  execFileSync(
    'apt-get',
    ['install', '-y', '--no-install-recommends', ...packages],
    { stdio: 'inherit', env },
  );
  absent = missing();
}
if (absent.length > 0) {
  console.error(
    `These browser tests need ${wanted.join(', ')}.\n` +
      absent.map(missingEngineMessage).join('\n'),
  );
  process.exit(1);
}
for (const engine of wanted) {
  const { executable, browser } = findEngine(engine);
  console.log(
    `Browser tests use ${engine}: ${executable}${browser ? ` (${browser})` : ''}`,
  );
}
