/**
 * Vitest global setup of the server projects: builds the service as
 * `npm run build` does (scripts/buildServer.ts), so that the tests that run
 * it as a process run what `npm run serve` runs.
 */
import { buildServerBundle } from '../../../scripts/buildServer';

export default function serverBundleSetup(): void {
  buildServerBundle();
}
