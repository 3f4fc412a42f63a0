/**
 * The engines the running browser project drives (vitest.config.ts gives
 * each browser project its list with `provide`): Chromium in `npm test`'s
 * `browser` and `browser-postgres`, Firefox and WebKit in
 * `npm run test:engines`'s `engines`. The files that run in every engine
 * write `describe.each(enginesUnderTest())` and are the same tests in both
 * commands.
 */
import { inject } from 'vitest';
import type { Engine } from '../../../../harness/engines';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The engines this project's three-engine files run in. */
    engines: Engine[];
  }
}

/** @returns the running project's engines, in harness/engines.ts's order */
export function enginesUnderTest(): Engine[] {
  return inject('engines');
}
