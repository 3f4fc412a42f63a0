/**
 * Launches the system Chromium (tests/support/engines/find.ts) through
 * playwright-core, for the browser tests that are about Chromium alone (no
 * browser download: it cannot be fetched here).
 */
import { chromium, type Browser } from 'playwright-core';
import { findEngine } from './engines/find';

/** The flags this closed network needs, whatever drives Chromium. */
export const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** Headless Chromium; the tests' product domain (tests/support/paths.ts) is this machine. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: findEngine('chromium').executable,
    headless: true,
    args: [
      ...CHROMIUM_FLAGS,
      '--host-resolver-rules=MAP *.vigil.test 127.0.0.1',
    ],
  });
}
