/**
 * Finds the system Chromium that the browser tests drive through
 * playwright-core (no browser download: it cannot be fetched here).
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];

/**
 * @returns the path of `CHROMIUM_PATH` or of Debian's chromium
 * @throws Error saying how to install it when none is found
 */
export function findChromium(): string {
  const fromEnv = process.env.CHROMIUM_PATH;
  const found = [fromEnv, ...CANDIDATES].find(
    (path): path is string => !!path && existsSync(path),
  );
  if (!found) {
    throw new Error(
      "No Chromium found. Install Debian's package (as root: apt-get update && apt-get install -y chromium) or set CHROMIUM_PATH.",
    );
  }
  return found;
}

/** Headless Chromium with the flags this closed network needs. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: findChromium(),
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      // The tests' product domain (tests/support/paths.ts) is this machine.
      '--host-resolver-rules=MAP *.vigil.test 127.0.0.1',
    ],
  });
}
