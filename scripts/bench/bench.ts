/**
 * `npm run bench`: builds the page (scripts/build.ts), serves it with the
 * real local server (server/app.ts) and the plain-HTML baseline
 * (bench/baseline.html: the plain form a visitor would otherwise get, about
 * 1.5 KB: the same fields, a small inline stylesheet, no script, no
 * framework; sent with the same security headers) and the stack floor page
 * (the baseline plus React and ReactDOM evaluated after its first paint) on
 * loopback, and runs Lighthouse's mobile preset on the three, alternating,
 * under both throttling models: `simulate` (Lantern's estimate, what
 * PageSpeed Insights shows) and `devtools` (real network and CPU
 * throttling). It prints the medians of the performance score, FCP, LCP,
 * TBT and CLS with the ratios ours / baseline and the stack floor's
 * medians beside them (its TBT is what hydrating React costs at least on
 * the machine that runs the benchmark), the bytes of HTML, CSS and
 * JS a visit transfers with gzip and with Brotli, and the JavaScript's
 * composition: the initial JS (what `/signup` loads before the visitor's
 * first interaction) against the stack floor (what the libraries the page
 * is built on cost in this build, scripts/bench/bundleBytes.ts) and its budget
 * ([D58](../../docs/decisions.md#D58)), our own code, and each chunk loaded later with its trigger. The
 * table is also written to bench/results.md, with the machine's load
 * average when the runs started and ended: on a shared machine the other
 * processes' CPU shows in every timing.
 *
 * Google's reCAPTCHA requests are blocked (Lighthouse's
 * `--blocked-url-patterns`): no run pays for a third party the benchmark
 * does not control, and runs compare whether Google is reachable or not.
 * Not part of `npm test`: timings vary with the machine.
 *
 * Usage: `npm run bench [-- --runs 5]` (at least 5 runs per page and model)
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import fastifyStatic from '@fastify/static';
import { buildSync } from 'esbuild';
import Fastify from 'fastify';
import { buildServer } from '../../server/app';
import { securityHeadersHook } from '../../server/http/securityHeaders';
import { readConfig } from '../../common/config';
import { buildPage, hashSource } from '../build';
import { jsComposition, STACK_PACKAGES } from './bundleBytes';
import { findEngine } from '../../harness/engines';
import { scratchDatabase } from '../../harness/page/scratchDatabase';

const ROOT = resolve(import.meta.dirname, '../..');
const DIST = join(ROOT, 'dist');
const RESULTS = join(ROOT, 'bench/results.md');
// Lighthouse's launcher reads CHROME_PATH; the binary is the one every tool uses.
const CHROME_PATH = findEngine('chromium').executable;
const CHROME_FLAGS = [
  '--headless=new',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
/** Lighthouse's throttling models. */
const MODELS = ['simulate', 'devtools'] as const;
type Model = (typeof MODELS)[number];
/** Google's reCAPTCHA (script, widget code, frames): unreachable here. */
const BLOCKED = ['*google.com/recaptcha*', '*gstatic.com/recaptcha*'];

/** The parts of a Lighthouse result (LHR) the benchmark reads. */
interface LighthouseResult {
  lighthouseVersion: string;
  categories: { performance: { score: number | null } };
  audits: Record<
    string,
    {
      numericValue?: number;
      details?: { items?: { url: string; resourceType?: string }[] };
    }
  >;
}

interface Run {
  score: number;
  fcp: number;
  lcp: number;
  tbt: number;
  cls: number;
  /** Same-origin URLs the page requested, by kind. */
  urls: Record<Kind, string[]>;
  lighthouseVersion: string;
}

type Kind = 'html' | 'css' | 'js';

function kindOf(resourceType: string | undefined): Kind | undefined {
  if (resourceType === 'Document') return 'html';
  if (resourceType === 'Stylesheet') return 'css';
  if (resourceType === 'Script') return 'js';
  return undefined;
}

/**
 * What the stack floor page evaluates: React and ReactDOM, which any React
 * page that hydrates carries whole (CommonJS: nothing is tree-shaken), and
 * whose evaluation on a slow phone is one task the page cannot split.
 */
const FLOOR_IMPORTS = ['react', 'react-dom/client'] as const;

/**
 * The stack floor page's module script: {@link FLOOR_IMPORTS} bundled and
 * minified for production by esbuild, evaluated and kept, rendering
 * nothing.
 */
function floorScript(): string {
  const names = FLOOR_IMPORTS.map((_, index) => `m${index}`);
  const contents = [
    ...FLOOR_IMPORTS.map(
      (name, index) => `import * as m${index} from '${name}';`,
    ),
    `globalThis.stackFloor = [${names.join(', ')}];`,
  ].join('\n');
  const [output] = buildSync({
    stdin: { contents, resolveDir: ROOT, loader: 'js' },
    bundle: true,
    minify: true,
    format: 'esm',
    define: { 'process.env.NODE_ENV': '"production"' },
    write: false,
    logLevel: 'error',
  }).outputFiles;
  if (!output) throw new Error('esbuild wrote no stack floor script');
  return output.text;
}

/**
 * The stack floor page's inline script: appends `/floor.js` as a module
 * script after the first contentful paint (or after 1 s), as the sign-up
 * page's early script starts the app (src/early/earlyScript.ts).
 */
const FLOOR_START = `(()=>{let s=!1;const a=()=>{if(s)return;s=!0;const e=document.createElement('script');e.type='module';e.src='/floor.js';document.head.append(e)};new PerformanceObserver((l,o)=>{l.getEntriesByName('first-contentful-paint').length>0&&(o.disconnect(),a())}).observe({type:'paint',buffered:!0});setTimeout(a,1e3)})();`;

/**
 * Serves the baseline page at `/signup` and the stack floor page (the
 * baseline plus {@link floorScript}) at `/floor`, precompressed like
 * Parcel's output.
 */
async function startBaseline(): Promise<{
  origin: string;
  close: () => Promise<void>;
}> {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-baseline-'));
  const baselineHtml = readFileSync(join(ROOT, 'bench/baseline.html'), 'utf8');
  const files = {
    'index.html': baselineHtml,
    'floor.html': baselineHtml.replace(
      '</head>',
      `<script>${FLOOR_START}</script></head>`,
    ),
    'floor.js': floorScript(),
  };
  for (const [name, text] of Object.entries(files)) {
    const bytes = Buffer.from(text);
    writeFileSync(join(dir, name), bytes);
    writeFileSync(join(dir, `${name}.gz`), gzipSync(bytes, { level: 9 }));
    writeFileSync(
      join(dir, `${name}.br`),
      brotliCompressSync(bytes, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
        },
      }),
    );
  }
  const app = Fastify();
  // The same security headers as the page's server (its inline <style>
  // allowed by hash): Cross-Origin-Opener-Policy alone costs about 100 ms
  // of first paint under devtools throttling (a new browsing context group
  // on navigation), which is the server's cost, not the page's.
  const style = /<style>([\s\S]*?)<\/style>/.exec(baselineHtml)?.[1];
  app.addHook(
    'onRequest',
    securityHeadersHook({
      inlineHashes: {
        script: [hashSource(FLOOR_START)],
        style: style ? [hashSource(style)] : [],
      },
    }),
  );
  await app.register(fastifyStatic, {
    root: dir,
    index: false,
    preCompressed: true,
  });
  app.get('/signup', (_request, reply) => reply.sendFile('index.html'));
  app.get('/floor', (_request, reply) => reply.sendFile('floor.html'));
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  return { origin: `http://127.0.0.1:${port}`, close: () => app.close() };
}

async function startOurs(): Promise<{
  origin: string;
  close: () => Promise<void>;
}> {
  const config = readConfig(process.env);
  const app = await buildServer({
    distDir: DIST,
    productName: config.productName,
    trackingTagUrl: config.trackingTagUrl,
    rateLimit: 1000,
    database: await scratchDatabase(),
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  return { origin: `http://127.0.0.1:${port}`, close: () => app.close() };
}

/**
 * Runs Lighthouse's CLI (mobile preset, performance only) once, in a child
 * process: this process must stay free to answer the page's requests.
 */
async function lighthouse(
  url: string,
  model: Model,
  outputDir: string,
  index: number,
): Promise<Run> {
  const output = join(outputDir, `run-${index}.json`);
  const args = [
    url,
    '--only-categories=performance',
    `--throttling-method=${model}`,
    `--chrome-flags=${CHROME_FLAGS.join(' ')}`,
    ...BLOCKED.map((pattern) => `--blocked-url-patterns=${pattern}`),
    '--output=json',
    `--output-path=${output}`,
    '--quiet',
  ];
  // Lighthouse now and then loses the trace (NO_NAVSTART): try again.
  for (let attempt = 1; ; attempt += 1) {
    try {
      await promisify(execFile)(
        join(ROOT, 'node_modules/.bin/lighthouse'),
        args,
        { env: { ...process.env, CHROME_PATH } },
      );
      break;
    } catch (error) {
      if (attempt === 3) throw error;
      console.log(`  Lighthouse failed (attempt ${attempt}); again`);
    }
  }
  const lhr = JSON.parse(readFileSync(output, 'utf8')) as LighthouseResult;
  const value = (audit: string) => lhr.audits[audit]?.numericValue ?? NaN;
  const origin = new URL(url).origin;
  const urls: Record<Kind, string[]> = { html: [], css: [], js: [] };
  for (const item of lhr.audits['network-requests']?.details?.items ?? []) {
    const kind = kindOf(item.resourceType);
    if (kind && item.url.startsWith(origin)) urls[kind].push(item.url);
  }
  return {
    score: Math.round((lhr.categories.performance.score ?? 0) * 100),
    fcp: value('first-contentful-paint'),
    lcp: value('largest-contentful-paint'),
    tbt: value('total-blocking-time'),
    cls: value('cumulative-layout-shift'),
    urls,
    lighthouseVersion: lhr.lighthouseVersion,
  };
}

/** The size of a response body as sent with one Accept-Encoding. */
function bodyBytes(url: string, encoding: string): Promise<number> {
  return new Promise((resolveBytes, reject) => {
    request(url, { headers: { 'accept-encoding': encoding } }, (response) => {
      let bytes = 0;
      response.on('data', (chunk: Buffer) => (bytes += chunk.length));
      response.on('end', () => resolveBytes(bytes));
      response.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}

type Sizes = Record<Kind, { gzip: number; br: number }>;

async function transferSizes(urls: Record<Kind, string[]>): Promise<Sizes> {
  const sizes = {} as Sizes;
  for (const kind of ['html', 'css', 'js'] as const) {
    let gzip = 0;
    let br = 0;
    for (const url of new Set(urls[kind])) {
      gzip += await bodyBytes(url, 'gzip');
      br += await bodyBytes(url, 'br');
    }
    sizes[kind] = { gzip, br };
  }
  return sizes;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[middle] ?? NaN)
    : ((sorted[middle - 1] ?? NaN) + (sorted[middle] ?? NaN)) / 2;
}

function ratio(ours: number, baseline: number): string {
  if (baseline === 0) return ours === 0 ? '1.00' : '–';
  return (ours / baseline).toFixed(2);
}

/** The sign-up page, the plain-HTML baseline, and the stack floor page. */
type Page = 'ours' | 'baseline' | 'floor';
const PAGES = ['ours', 'baseline', 'floor'] as const;
type Metric = 'score' | 'fcp' | 'lcp' | 'tbt' | 'cls';

const ms = (value: number) => `${Math.round(value)} ms`;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

function markdownTable(header: string[], rows: string[][]): string {
  return [
    `| ${header.join(' | ')} |`,
    `|---|${header
      .slice(1)
      .map(() => '---:')
      .join('|')}|`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ].join('\n');
}

/** The medians and ratios of one throttling model. */
function timingRows(results: Record<Page, Run[]>): string[][] {
  const m = (page: Page, key: Metric) =>
    median(results[page].map((run) => run[key]));
  return [
    [
      'Performance score',
      String(m('ours', 'score')),
      String(m('baseline', 'score')),
      ratio(m('ours', 'score'), m('baseline', 'score')),
      String(m('floor', 'score')),
    ],
    ...(['fcp', 'lcp', 'tbt'] as const).map((key) => [
      key.toUpperCase(),
      ms(m('ours', key)),
      ms(m('baseline', key)),
      ratio(m('ours', key), m('baseline', key)),
      ms(m('floor', key)),
    ]),
    [
      'CLS',
      m('ours', 'cls').toFixed(3),
      m('baseline', 'cls').toFixed(3),
      ratio(m('ours', 'cls'), m('baseline', 'cls')),
      m('floor', 'cls').toFixed(3),
    ],
  ];
}

function byteRows(sizes: Record<'ours' | 'baseline', Sizes>): string[][] {
  const rows: string[][] = [];
  for (const kind of ['html', 'css', 'js'] as const) {
    for (const encoding of ['gzip', 'br'] as const) {
      const o = sizes.ours[kind][encoding];
      const b = sizes.baseline[kind][encoding];
      rows.push([
        `${kind.toUpperCase()} (${encoding})`,
        kb(o),
        kb(b),
        ratio(o, b),
      ]);
    }
  }
  for (const encoding of ['gzip', 'br'] as const) {
    const total = (s: Sizes) =>
      s.html[encoding] + s.css[encoding] + s.js[encoding];
    rows.push([
      `Total (${encoding})`,
      kb(total(sizes.ours)),
      kb(total(sizes.baseline)),
      ratio(total(sizes.ours), total(sizes.baseline)),
    ]);
  }
  return rows;
}

/** The floor + 7 KiB of [D58](../../docs/decisions.md#D58) (docs/decisions.md), Brotli. */
const ABOVE_FLOOR_BUDGET = 7 * 1024;

/**
 * The JavaScript's composition: what `/signup` loads first, the stack
 * floor against our code, and each chunk loaded later with its trigger.
 */
function compositionRows(): string[][] {
  const js = jsComposition(DIST);
  const row = (label: string, bytes: { gzip: number; brotli: number }) => [
    label,
    `${bytes.gzip} B`,
    `${bytes.brotli} B`,
  ];
  const above = js.wire.brotli - js.parts.stack.brotli;
  return [
    row(`Initial JS (${js.scripts.join(', ')})`, js.wire),
    row('Stack floor (its libraries alone)', js.parts.stack),
    [
      `Initial JS above the floor (budget ${ABOVE_FLOOR_BUDGET} B: ${above <= ABOVE_FLOOR_BUDGET ? 'met' : 'not met'})`,
      `${js.wire.gzip - js.parts.stack.gzip} B`,
      `${above} B`,
    ],
    row('Our code alone (src/, machines/)', js.parts.ours),
    row("The bundler's runtime", js.parts.other),
    ...js.lazy.map((chunk) =>
      row(
        `Later: ${chunk.name} (${chunk.script}), on ${chunk.trigger}`,
        chunk.wire,
      ),
    ),
  ];
}

/** Runs the benchmark and prints (and writes) its tables. */
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { runs: { type: 'string', default: '5' } },
  });
  const runs = Math.max(5, Number(values.runs));
  buildPage({ distDir: DIST });
  const ours = await startOurs();
  const baseline = await startBaseline();
  const outputDir = mkdtempSync(join(tmpdir(), 'vigil-bench-'));
  const urls: Record<Page, string> = {
    ours: `${ours.origin}/signup`,
    baseline: `${baseline.origin}/signup`,
    floor: `${baseline.origin}/floor`,
  };
  const results: Record<Model, Record<Page, Run[]>> = {
    simulate: { ours: [], baseline: [], floor: [] },
    devtools: { ours: [], baseline: [], floor: [] },
  };
  let count = 0;
  const loadAtStart = loadavg();
  try {
    for (let index = 0; index < runs; index += 1) {
      for (const model of MODELS) {
        for (const page of PAGES) {
          console.log(`Lighthouse run ${index + 1}/${runs}: ${model}, ${page}`);
          results[model][page].push(
            await lighthouse(urls[page], model, outputDir, (count += 1)),
          );
        }
      }
    }
    const loadAtEnd = loadavg();
    const load = (averages: number[]) =>
      averages.map((value) => value.toFixed(2)).join(', ');
    const first = results.simulate;
    const noUrls = { html: [], css: [], js: [] };
    const sizes = {
      ours: await transferSizes(first.ours[0]?.urls ?? noUrls),
      baseline: await transferSizes(first.baseline[0]?.urls ?? noUrls),
    };
    const chromium = execFileSync(CHROME_PATH, ['--version'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    const header = ['', 'ours', 'baseline', 'ours / baseline'];
    const timingHeader = [...header, 'stack floor'];
    const sections = [
      ...MODELS.map(
        (model) =>
          `### Throttling: ${model}\n\n${markdownTable(timingHeader, timingRows(results[model]))}\n\nScore/LCP (ms) of each run: ours ${results[model].ours.map((run) => `${run.score}/${Math.round(run.lcp)}`).join(', ')}; baseline ${results[model].baseline.map((run) => `${run.score}/${Math.round(run.lcp)}`).join(', ')}.`,
      ),
      `### Bytes a visit transfers\n\n${markdownTable(header, byteRows(sizes))}`,
      `### The JavaScript\n\nThe stack: ${STACK_PACKAGES.join(', ')}, with their dependencies. Later chunks are listed, not counted in the initial JS.\n\n${markdownTable(['', 'gzip', 'brotli'], compositionRows())}`,
    ];
    const report = `# Benchmark results

Written by \`npm run bench\` on ${new Date().toISOString()}: Lighthouse
${first.ours[0]?.lighthouseVersion} (mobile preset: slow 4G, 4× CPU
slowdown), ${chromium}, ${runs} runs of each page under each throttling
model, alternating, medians; the load average (1, 5, 15 min) was
${load(loadAtStart)} when the runs started and ${load(loadAtEnd)} when they
ended. The baseline is the plain form a visitor would otherwise get
(bench/baseline.html, about 1.5 KB): the same fields, a small inline
stylesheet, no script, no framework. The stack floor page is the baseline
plus React and ReactDOM alone, evaluated after the first paint as our page
starts its script: what any React page pays. Google's reCAPTCHA requests are
blocked (unreachable here). Bytes: what the servers send for the page's
same-origin HTML, CSS and JS with \`Accept-Encoding: gzip\` and with \`br\`.

${sections.join('\n\n')}
`;
    console.log(`\n${sections.join('\n\n')}\n`);
    writeFileSync(RESULTS, report);
    console.log(`Written to ${RESULTS}`);
  } finally {
    await ours.close();
    await baseline.close();
  }
}

await main();
