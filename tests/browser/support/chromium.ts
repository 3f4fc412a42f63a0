/**
 * Chromium for the browser tests that are about Chromium alone, with the
 * tests' product domain (harness/page/paths.ts) mapped to this machine.
 */
import type { Browser } from 'playwright-core';
import { launchChromium as launchSystemChromium } from '../../../harness/engines';

export function launchChromium(): Promise<Browser> {
  return launchSystemChromium([
    '--host-resolver-rules=MAP *.vigil.test 127.0.0.1',
  ]);
}
