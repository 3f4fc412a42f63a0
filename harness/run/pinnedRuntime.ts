/**
 * The Node.js the project pins (ADR-0118): the
 * `node` package in package.json's devDependencies, which `npm install`
 * brings into node_modules/.bin, where every `npm` script finds it first.
 * `.node-version` names the same version for those who manage Node.js
 * themselves. The test commands refuse to run on another major, since a
 * green run there says nothing of the runtime CI and deployments use.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../page/paths';

/**
 * @param root the project's folder (default: this checkout)
 * @returns the pinned version, e.g. `26.10.0`: package.json's
 *   `devDependencies.node`, an exact version
 * @throws Error when package.json pins no exact `node` version
 */
export function pinnedNodeVersion(root = PROJECT_ROOT): string {
  const manifest = JSON.parse(
    readFileSync(join(root, 'package.json'), 'utf8'),
  ) as { devDependencies?: Record<string, string> };
  const pinned = manifest.devDependencies?.node;
  if (pinned === undefined || !/^\d+\.\d+\.\d+$/.test(pinned)) {
    throw new Error(
      `package.json must pin the runtime as an exact devDependency "node" (e.g. "26.10.0"); found ${JSON.stringify(pinned)}`,
    );
  }
  return pinned;
}

/**
 * Whether a command runs on the pinned runtime's major.
 *
 * @param command what runs, for the sentence (`npm test`)
 * @param running the running version (`process.versions.node`, `26.10.0`)
 * @param pinned the pinned version ({@link pinnedNodeVersion})
 * @returns undefined on the same major; otherwise one sentence that names
 *   both versions and what to do
 */
export function runtimeMismatch(
  command: string,
  running: string,
  pinned: string,
): string | undefined {
  const major = (version: string) => version.replace(/^v/, '').split('.')[0];
  if (major(running) === major(pinned)) return undefined;
  return `${command} runs on Node.js ${running}, but this project pins Node.js ${pinned} (package.json's devDependencies "node"): run \`npm install\`, which brings it into node_modules/.bin, and start the tests through npm (\`${command}\`), which runs them on it.`;
}

/**
 * Ends the process with {@link runtimeMismatch}'s sentence (exit code 1)
 * when it does not run on the pinned major.
 *
 * @param command what runs, for the sentence
 */
export function exitUnlessPinnedRuntime(command: string): void {
  const mismatch = runtimeMismatch(
    command,
    process.versions.node,
    pinnedNodeVersion(),
  );
  if (mismatch === undefined) return;
  console.error(mismatch);
  process.exit(1);
}
