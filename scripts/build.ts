/**
 * The page's build (`npm run build`, and the browser tests' builds through
 * harness/page/buildPage.ts): Parcel bundles index.html into the dist
 * folder, then the emitted index.html is finished for the first paint:
 *
 * - the page is prerendered into it with react-dom/server, so its markup
 *   paints before any JavaScript runs; the entry point (src/main.tsx)
 *   hydrates it. The prerender reads the same configuration as the bundle
 *   (`readConfig(process.env)`, which Parcel inlines) and renders the
 *   default state (no address parameters, no cookies);
 * - the stylesheet (about 2 KB compressed) is inlined as a `<style>`, so
 *   nothing blocks rendering;
 * - the module script (last in the body) is replaced by the inline script
 *   (the entry src/inputCapture/inlineScript.ts over
 *   src/inputCapture/inputCapture.ts), which holds a submit made before
 *   the app runs and saves the sign-up draft
 *   (src/inputCapture/draft.ts); after the first paint it pushes the consent
 *   defaults, restores the draft and starts the app;
 * - the SHA-256 hashes of both inline blocks are written to
 *   {@link INLINE_HASHES_FILE}, from which the server builds its
 *   Content-Security-Policy (never `'unsafe-inline'`);
 * - index.html's precompressed `.gz` and `.br` copies are rewritten;
 * - a copy of it marked for Global Privacy Control ({@link GPC_PAGE_FILE},
 *   with its own `.gz` and `.br`) is written for requests that send
 *   `Sec-GPC: 1` (ADR-0074).
 *
 * Usage: `tsx scripts/build.ts [--dist-dir dist] [--cache-dir DIR]
 * [--no-source-maps]`
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { buildSync } from 'esbuild';
import { parse, type DefaultTreeAdapterMap } from 'parse5';
import { createElement, StrictMode } from 'react';
import { renderToString } from 'react-dom/server';
import { GPC_PAGE_FILE } from '../server/http/pageRoutes';
import {
  INLINE_HASHES_FILE,
  type InlineHashes,
} from '../server/http/securityHeaders';
import { startSignUpApp } from '../src/app';
import { PageShell } from '../src/PageShell';
import {
  pageConfigEnvironment,
  readConfig,
  type ConfigEnvironment,
} from '../common/config';
import { cookieNames } from '../common/cookieNames';
import { GPC_ATTRIBUTE } from '../src/consent';
import { draftKey } from '../src/inputCapture';

const PROJECT_ROOT = resolve(import.meta.dirname, '..');

type Element = DefaultTreeAdapterMap['element'];
type Located = Element & {
  sourceCodeLocation: NonNullable<Element['sourceCodeLocation']>;
};

/**
 * The elements of an HTML document that stand in its text, in document
 * order, each with where it lies (parse5's source locations, parsed as the
 * HTML Standard parses). An element the parser implied (an omitted
 * `<head>`, say) has no place in the text and is left out.
 */
function elementsOf(html: string): Located[] {
  const found: Located[] = [];
  const visit = (node: DefaultTreeAdapterMap['parentNode']) => {
    for (const child of node.childNodes) {
      if (!('tagName' in child)) continue;
      if (child.sourceCodeLocation) found.push(child as Located);
      visit(child);
    }
  };
  visit(parse(html, { sourceCodeLocationInfo: true }));
  return found;
}

/** An attribute's value, or undefined. */
const attribute = (element: Element, name: string) =>
  element.attrs.find((attr) => attr.name === name)?.value;

/** A change to an HTML text: `[start, end)` becomes `text`. */
interface Splice {
  start: number;
  end: number;
  text: string;
}

/** Applies non-overlapping splices, whatever their order. */
function spliced(html: string, splices: Splice[]): string {
  return [...splices]
    .sort((a, b) => b.start - a.start)
    .reduce(
      (text, { start, end, text: insert }) =>
        text.slice(0, start) + insert + text.slice(end),
      html,
    );
}

/** The splice that puts `text` in place of the element's content. */
function contentOf(element: Located, text: string): Splice {
  const { startTag, endTag } = element.sourceCodeLocation;
  if (!startTag || !endTag) {
    throw new Error(`<${element.tagName}> has no end tag to fill up to`);
  }
  return { start: startTag.endOffset, end: endTag.startOffset, text };
}

/** The splice that puts `text` in place of the whole element. */
const wholeOf = (element: Located, text: string): Splice => ({
  start: element.sourceCodeLocation.startOffset,
  end: element.sourceCodeLocation.endOffset,
  text,
});

export interface BuildOptions {
  /** Parcel's output folder; emptied first, so it holds this build only. */
  distDir: string;
  /** Parcel's cache folder; default Parcel's own (`.parcel-cache`). */
  cacheDir?: string;
  sourceMaps?: boolean;
  /** The build's environment (configuration of docs/contract.md). */
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
 * @returns the markup of `#root`: the page's shell (src/PageShell.tsx)
 *   with the form in its slot
 */
export function renderDefaultPage(env: ConfigEnvironment): string {
  const config = readConfig(env);
  // Only the consent choice's effects (the tag) touch the document, and no
  // choice is stored here; there is no window for the consent signals'
  // queues either (the page's inline script pushes their defaults).
  const noDocument = new Proxy({} as Document, {
    get(_target, key) {
      if (key === 'defaultView') return null;
      throw new Error('The prerender has no document');
    },
  });
  const { form, consent } = startSignUpApp({
    config,
    search: '',
    hostname: 'localhost',
    origin: 'http://localhost',
    document: noDocument,
    replaceAddress: () => {},
    navigate: () => {},
  });
  try {
    // ADR-0072: the shell is static; the settings link and the modal are
    // rendered by the page's script into their empty slots.
    return renderToString(
      createElement(
        StrictMode,
        null,
        createElement(PageShell, { productName: config.productName, form }),
      ),
    );
  } finally {
    consent.stop();
  }
}

/** A CSP hash source of an inline block's text (CSP Level 3, "hash-source"). */
export function hashSource(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

/** The build's values the inline script reads (src/inputCapture/inlineScript.ts `BUILD`). */
export interface InlineScriptValues {
  appScript: string;
  draftKey: string;
  consentCookie: string;
  revisionCookie: string;
  consentRevision: number;
}

/**
 * The inline script's entry (src/inputCapture/inlineScript.ts) bundled into one
 * minified classic script, with `values` written in for its `BUILD`
 * constants (esbuild's `define`): it holds submits of the sign-up form and
 * saves the draft; after the first paint, pushes the consent defaults
 * (ADR-0066), restores the draft and starts the app's script.
 */
export function inlineScript(values: InlineScriptValues): string {
  const { outputFiles } = buildSync({
    entryPoints: [resolve(PROJECT_ROOT, 'src/inputCapture/inlineScript.ts')],
    define: Object.fromEntries(
      Object.entries(values).map(([name, value]) => [
        `BUILD.${name}`,
        JSON.stringify(value),
      ]),
    ),
    bundle: true,
    format: 'iife',
    minify: true,
    // Not the project's tsconfig.json, whose `strict` would add a
    // "use strict" the classic script never had.
    tsconfigRaw: {},
    // The same browsers as the bundle (package.json "browserslist").
    target: ['es2020'],
    write: false,
  });
  const [output] = outputFiles;
  if (!output) throw new Error('esbuild wrote no inline script');
  return output.text.trim();
}

/**
 * The page as served to a request that sends `Sec-GPC: 1` (ADR-0074): its
 * `<html>` element carries {@link GPC_ATTRIBUTE}, which the app reads as
 * the browser's Global Privacy Control signal (src/consent/consentSignals.ts).
 *
 * @throws Error when the HTML has no `<html>` start tag
 */
export function markedForGpc(html: string): string {
  const root = elementsOf(html).find((element) => element.tagName === 'html');
  if (!root) throw new Error('index.html has no <html> start tag');
  const at = root.sourceCodeLocation.startOffset + '<html'.length;
  return spliced(html, [{ start: at, end: at, text: ` ${GPC_ATTRIBUTE}` }]);
}

/** Writes an HTML file with its precompressed `.gz` and `.br` copies. */
function writePage(path: string, html: string): void {
  const bytes = Buffer.from(html);
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

function removeAsset(distDir: string, name: string): void {
  for (const file of readdirSync(distDir)) {
    if (file === name || file.startsWith(`${name}.`)) {
      rmSync(join(distDir, file));
    }
  }
}

/**
 * Finishes a Parcel-built index.html for the first paint (see the module's
 * comment): prerenders the page and its title (as src/main.tsx sets it),
 * inlines the stylesheet, replaces the module script with the inline
 * script, writes {@link INLINE_HASHES_FILE}, then rewrites index.html's
 * `.gz` and `.br` copies and writes the copy marked for Global Privacy
 * Control ({@link markedForGpc}). The inlined stylesheet's files are
 * removed.
 *
 * @returns the hashes of the inline blocks
 * @throws Error when index.html lacks the empty `#root` container, the
 *   stylesheet's `<link>` or the module script
 */
export function prerender(
  distDir: string,
  env: ConfigEnvironment,
): InlineHashes {
  const path = join(distDir, 'index.html');
  const html = readFileSync(path, 'utf8');
  const elements = elementsOf(html);
  const root = elements.find(
    (e) =>
      e.tagName === 'div' &&
      attribute(e, 'id') === 'root' &&
      // Empty: nothing in it but white space.
      e.childNodes.every((n) => 'value' in n && !n.value.trim()),
  );
  const title = elements.find((e) => e.tagName === 'title');
  const link = elements.find(
    (e) => e.tagName === 'link' && attribute(e, 'rel') === 'stylesheet',
  );
  const module = elements.find(
    (e) => e.tagName === 'script' && attribute(e, 'type') === 'module',
  );
  // Parcel writes root-relative URLs (`--public-url /`).
  const stylesheet = link && attribute(link, 'href')?.replace(/^\//, '');
  const appScript = module && attribute(module, 'src');
  if (!root || !title || !link || !stylesheet || !module || !appScript) {
    throw new Error(
      `${path} lacks the empty <div id="root">, the <title>, the stylesheet's <link> or the module script`,
    );
  }
  const css = readFileSync(join(distDir, stylesheet), 'utf8')
    .replace(/\/\*# sourceMappingURL=[^*]*\*\/\s*$/, '')
    .trim();
  const { productName, consentRevision } = readConfig(env);
  const names = cookieNames(productName);
  const script = inlineScript({
    appScript,
    draftKey: draftKey(productName),
    consentCookie: names.consent,
    revisionCookie: names.consentRevision,
    consentRevision,
  });
  const page = renderDefaultPage(env);
  const output = spliced(html, [
    contentOf(root, page),
    contentOf(title, `Create your ${escapeHtml(productName)} account`),
    wholeOf(link, `<style>${css}</style>`),
    wholeOf(module, `<script>${script}</script>`),
  ]);
  const hashes: InlineHashes = {
    script: [hashSource(script)],
    style: [hashSource(css)],
  };
  removeAsset(distDir, stylesheet);
  writeFileSync(join(distDir, INLINE_HASHES_FILE), JSON.stringify(hashes));
  writePage(path, output);
  // ADR-0074: the copy for requests with `Sec-GPC: 1`. Only the `<html>` tag
  // differs: the inline blocks, and so the CSP's hashes, are the same.
  writePage(join(distDir, GPC_PAGE_FILE), markedForGpc(output));
  return hashes;
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
      env: { ...env, ...pageConfigEnvironment(env), NODE_ENV: 'production' },
    },
  );
  const hashes = prerender(distDir, env);
  console.log(
    `Inline blocks of index.html, allowed by the server's CSP: script-src ${hashes.script.join(' ')}; style-src ${hashes.style.join(' ')}`,
  );
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
