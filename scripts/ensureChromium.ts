/**
 * Run by `npm test` before the browser suite (CONTRACT.md "Commands"): finds
 * the system Chromium, or installs Debian's `chromium` package when it is
 * missing and this process may (root with apt-get), or fails with a message
 * that says what to do.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { findChromium } from '../tests/support/chromium';

function tryFind(): string | undefined {
  try {
    return findChromium();
  } catch {
    return undefined;
  }
}

let path = tryFind();
if (!path && process.getuid?.() === 0 && existsSync('/usr/bin/apt-get')) {
  console.log("Chromium is missing: installing Debian's chromium package…");
  execFileSync('apt-get', ['update'], { stdio: 'inherit' });
  execFileSync(
    'apt-get',
    ['install', '-y', '--no-install-recommends', 'chromium'],
    {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    },
  );
  path = tryFind();
}
if (!path) {
  console.error(
    'The browser tests need Chromium and none was found or could be installed.\n' +
      'As root run: apt-get update && apt-get install -y chromium\n' +
      '(or point CHROMIUM_PATH at a Chromium binary).',
  );
  process.exit(1);
}
console.log(`Browser tests use ${path}`);
