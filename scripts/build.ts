/**
 * The page's build (`npm run build`, and the browser tests' builds through
 * tests/support/buildPage.ts): Parcel bundles index.html into the dist
 * folder, then the page is prerendered into the emitted index.html with
 * react-dom/server, so its markup paints before any JavaScript runs; the
 * entry point (src/main.tsx) hydrates it. The prerender reads the same
 * configuration as the bundle (`readConfig(process.env)`, which Parcel
 * inlines), renders the default state (no address parameters, no cookies),
 * and rewrites index.html's precompressed `.gz` and `.br` copies.
 *
 * Usage: `tsx scripts/build.ts [--dist-dir dist] [--cache-dir DIR]
 * [--no-source-maps]`
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { createElement, StrictMode } from 'react';
import { renderToString } from 'react-dom/server';
import { startSignUpApp } from '../src/app';
import { readConfig, type ConfigEnvironment } from '../src/config';

const PROJECT_ROOT = resolve(import.meta.dirname, '..');
/** The empty container of index.html, as Parcel's minifier writes it. */
const EMPTY_ROOT = /<div id="?root"?>\s*<\/div>/;

export interface BuildOptions {
  /** Parcel's output folder; emptied first, so it holds this build only. */
  distDir: string;
  /** Parcel's cache folder; default Parcel's own (`.parcel-cache`). */
  cacheDir?: string;
  sourceMaps?: boolean;
  /** The build's environment (configuration of CONTRACT.md). */
  env?: NodeJS.ProcessEnv;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * Renders the page in its default state to HTML, as the browser's first
 * render of a visit without address parameters or cookies makes it.
 *
 * @param env the build's configuration variables
 * @returns the markup of `#root`
 */
export function renderDefaultPage(env: ConfigEnvironment): string {
  const config = readConfig(env);
  // Only the consent choice's effects (the tag) touch the document, and no
  // choice is stored here.
  const noDocument = new Proxy({} as Document, {
    get() {
      throw new Error('The prerender has no document');
    },
  });
  const { element, consent } = startSignUpApp({
    config,
    search: '',
    hostname: 'localhost',
    origin: 'http://localhost',
    document: noDocument,
    replaceAddress: () => {},
    navigate: () => {},
  });
  try {
    return renderToString(createElement(StrictMode, null, element));
  } finally {
    consent.stop();
  }
}

/**
 * Writes the prerendered page into a built index.html (and its title, as
 * src/main.tsx sets it), then rewrites its `.gz` and `.br` copies.
 *
 * @throws Error when index.html has no empty `#root` container
 */
export function prerender(distDir: string, env: ConfigEnvironment): void {
  const path = join(distDir, 'index.html');
  const html = readFileSync(path, 'utf8');
  if (!EMPTY_ROOT.test(html)) {
    throw new Error(`${path} has no empty <div id="root"> to prerender into`);
  }
  const { productName } = readConfig(env);
  const page = renderDefaultPage(env);
  const output = html
    .replace(EMPTY_ROOT, () => `<div id="root">${page}</div>`)
    .replace(
      /<title>[^<]*<\/title>/,
      () => `<title>Create your ${escapeHtml(productName)} account</title>`,
    );
  const bytes = Buffer.from(output);
  writeFileSync(path, bytes);
  writeFileSync(`${path}.gz`, gzipSync(bytes, { level: 9 }));
  writeFileSync(
    `${path}.br`,
    brotliCompressSync(bytes, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
        [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
      },
    }),
  );
}

/**
 * Builds the page: Parcel (production, `--public-url /`), then
 * {@link prerender}.
 */
export function buildPage(options: BuildOptions): void {
  const env = { ...process.env, ...options.env };
  const distDir = resolve(PROJECT_ROOT, options.distDir);
  rmSync(distDir, { recursive: true, force: true });
  execFileSync(
    resolve(PROJECT_ROOT, 'node_modules/.bin/parcel'),
    [
      'build',
      'index.html',
      '--dist-dir',
      distDir,
      '--public-url',
      '/',
      ...(options.sourceMaps === false ? ['--no-source-maps'] : []),
      ...(options.cacheDir ? ['--cache-dir', options.cacheDir] : []),
    ],
    {
      cwd: PROJECT_ROOT,
      stdio: 'inherit',
      // A test runner's NODE_ENV=test would build React's development copy.
      env: { ...env, NODE_ENV: 'production' },
    },
  );
  prerender(distDir, env);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      'dist-dir': { type: 'string', default: 'dist' },
      'cache-dir': { type: 'string' },
      'no-source-maps': { type: 'boolean', default: false },
    },
  });
  buildPage({
    distDir: values['dist-dir'],
    cacheDir: values['cache-dir'],
    sourceMaps: !values['no-source-maps'],
  });
}
