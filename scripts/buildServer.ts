/**
 * The sign-up service's production build (part of `npm run build`): the
 * TypeScript of server/ and what it imports of ours, bundled by esbuild into
 * ES modules: `dist-server/start.mjs`, the service, and
 * `dist-server/consent-export.mjs`, `npm run consent:export`, which runs
 * where the service runs, `dist-server/mail.mjs`, `npm run mail`, and
 * `dist-server/smtp-worker.mjs`, the thread the service sends mail from.
 * Packages stay outside the bundle
 * and load from node_modules, and files the service reads at start (its
 * stylesheets) from the source tree, so
 * `npm run serve` runs it with plain Node: no TypeScript loader at run
 * time (tsx costs the process about 70 MB: docs/performance.md).
 *
 * Not in `dist/`: the page's server serves that folder to anyone.
 *
 * Usage: `tsx scripts/buildServer.ts`
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildSync } from 'esbuild';

/** Where the service's bundle goes. */
export const SERVER_BUNDLE_DIR = resolve(import.meta.dirname, '../dist-server');
/** The bundle's entry: what `npm run serve` runs. */
export const SERVER_BUNDLE = join(SERVER_BUNDLE_DIR, 'start.mjs');
/** What `npm run consent:export` runs. */
export const CONSENT_EXPORT_BUNDLE = join(
  SERVER_BUNDLE_DIR,
  'consent-export.mjs',
);

/** What `npm run mail` runs. */
export const MAIL_COMMAND_BUNDLE = join(SERVER_BUNDLE_DIR, 'mail.mjs');

/**
 * Bundles TypeScript entries of ours into {@link SERVER_BUNDLE_DIR}, one
 * ES module each (`<name>.mjs`), packages left to node_modules.
 *
 * @param entryPoints the bundles' names and their entries (absolute)
 * @throws esbuild's error when the code does not build
 */
export function bundleServerEntries(entryPoints: Record<string, string>): void {
  mkdirSync(SERVER_BUNDLE_DIR, { recursive: true });
  buildSync({
    entryPoints,
    outdir: SERVER_BUNDLE_DIR,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    packages: 'external',
    sourcemap: 'linked',
    logLevel: 'warning',
  });
}

/**
 * Bundles server/start.ts into {@link SERVER_BUNDLE},
 * server/consent/consentExport.ts into {@link CONSENT_EXPORT_BUNDLE} and
 * server/outbox/mailCommand.ts into {@link MAIL_COMMAND_BUNDLE}, and the
 * SMTP transport's thread into `smtp-worker.mjs`.
 *
 * @throws esbuild's error when the code does not build
 */
export function buildServerBundle(): void {
  const root = resolve(import.meta.dirname, '..');
  bundleServerEntries({
    start: join(root, 'server/start.ts'),
    'consent-export': join(root, 'server/consent/consentExport.ts'),
    mail: join(root, 'server/outbox/mailCommand.ts'),
    // The SMTP transport's thread, which the service starts beside itself
    // (server/outbox/channels/mailTransport.ts finds it by this name).
    'smtp-worker': join(root, 'server/outbox/channels/smtpWorker.ts'),
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  buildServerBundle();
  console.log(
    `The sign-up service: ${SERVER_BUNDLE}; the consent export: ${CONSENT_EXPORT_BUNDLE}`,
  );
}
