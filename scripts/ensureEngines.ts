/**
 * Run by `npm test` before the browser suite: finds Chromium, Firefox and
 * WebKit (scripts/engines.ts), installs the Debian packages of
 * any that is missing when this process may (root with apt-get), or fails
 * with a message that says what to do.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import {
  ENGINE_PACKAGES,
  ENGINES,
  findEngine,
  missingEngineMessage,
  type Engine,
} from './engines';

function missing(): Engine[] {
  return ENGINES.filter((engine) => {
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
    'The browser tests need Chromium, Firefox and WebKit.\n' +
      absent.map(missingEngineMessage).join('\n'),
  );
  process.exit(1);
}
for (const engine of ENGINES) {
  const { executable, browser } = findEngine(engine);
  console.log(
    `Browser tests use ${engine}: ${executable}${browser ? ` (${browser})` : ''}`,
  );
}
