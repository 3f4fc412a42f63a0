/**
 * `npm run bench`: the first paint and the main thread's blocking time as
 * a visitor on a phone meets them (issue 49), against a plain form, in a
 * way anyone can repeat.
 *
 * - Ours: the sign-up page as `npm start` serves it: both builds
 *   (scripts/build.ts, scripts/buildServer.ts), then `dist-server/start.mjs`
 *   in a process of its own on loopback, every setting at its default but
 *   the data directory (a new one) and `MONITOR=off` (no site is checked,
 *   so no request can leave the machine; a new directory holds none).
 * - The plain form (bench/baseline.html, about 1.5 KB gzipped): the same
 *   fields, labels and hints, a 300×78 box where the captcha goes, a small
 *   stylesheet of its own (not our look) and a 10-line submit script,
 *   from a bare `node:http` server with gzip and no other header.
 * - With `--floor`, the stack floor page too: the plain form plus React and
 *   ReactDOM evaluated after its first paint, as our page starts its app
 *   (its TBT is what hydrating React costs at least).
 *
 * Lighthouse's mobile preset runs the pages alternately, under both
 * throttling models: `devtools` (real network and CPU throttling, what
 * Chromium's performance panel shows) and `simulate` (Lantern's estimate,
 * what PageSpeed Insights shows). It prints, and writes to
 * bench/results.md with the machine's load average when the runs started
 * and ended, the medians against issue 49's targets (devtools LCP at most
 * 1.15× the plain form's, simulated TBT at most 150 ms), every metric with
 * its ratio, the bytes of HTML, CSS and JS a visit transfers, and the
 * JavaScript's composition: the initial JS against the stack floor (what
 * the libraries the page is built on cost in this build,
 * scripts/bench/bundleBytes.ts) and its budget
 * (ADR-0058), and each chunk loaded later with
 * its trigger.
 *
 * Google's reCAPTCHA requests are blocked (Lighthouse's
 * `--blocked-url-patterns`): no run pays for a third party the benchmark
 * does not control. Not part of `npm test`: timings vary with the machine.
 *
 * Usage: `npm run bench [-- --runs 5] [--floor] [--traces]` (at least 5
 * runs per page and model; `--traces` keeps each devtools run's trace, for
 * `npm run bench:trace`, scripts/bench/traceAccount.ts)
 */
import { execFile, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { buildSync } from 'esbuild';
import { buildPage } from '../build';
import { buildServerBundle, SERVER_BUNDLE } from '../buildServer';
import { jsComposition, STACK_PACKAGES } from './bundleBytes';
import { findEngine } from '../../harness/engines';
import { freePort } from '../../harness/page/embeddedPostgres';

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
 * page's inline script starts the app (src/inputCapture/inputCapture.ts).
 */
const FLOOR_START = `(()=>{let s=!1;const a=()=>{if(s)return;s=!0;const e=document.createElement('script');e.type='module';e.src='/floor.js';document.head.append(e)};new PerformanceObserver((l,o)=>{l.getEntriesByName('first-contentful-paint').length>0&&(o.disconnect(),a())}).observe({type:'paint',buffered:!0});setTimeout(a,1e3)})();`;

/** A server the benchmark started, at its origin. */
interface Served {
  origin: string;
  close: () => Promise<void>;
}

/**
 * The plain form (bench/baseline.html) at `/`, and the stack floor page
 * (the plain form plus {@link floorScript}, started as our page starts its
 * app) at `/floor`, from a bare `node:http` server that gzips each response
 * when the request accepts it: no framework, no hooks, no security
 * headers, no Brotli (issue 49's plain form, as a visitor would otherwise
 * meet it).
 */
async function startPlainForm(): Promise<Served> {
  const html = readFileSync(join(ROOT, 'bench/baseline.html'), 'utf8');
  const pages = new Map<string, { type: string; body: Buffer }>([
    ['/', { type: 'text/html; charset=utf-8', body: Buffer.from(html) }],
    [
      '/floor',
      {
        type: 'text/html; charset=utf-8',
        body: Buffer.from(
          html.replace('</head>', `<script>${FLOOR_START}</script></head>`),
        ),
      },
    ],
    [
      '/floor.js',
      {
        type: 'text/javascript; charset=utf-8',
        body: Buffer.from(floorScript()),
      },
    ],
  ]);
  const server = createServer((request, response) => {
    const page = pages.get(new URL(request.url ?? '/', 'http://x').pathname);
    if (!page) {
      response.writeHead(404).end();
      return;
    }
    const gzip = /\bgzip\b/.test(request.headers['accept-encoding'] ?? '');
    response.writeHead(200, {
      'content-type': page.type,
      vary: 'accept-encoding',
      ...(gzip && { 'content-encoding': 'gzip' }),
    });
    response.end(gzip ? gzipSync(page.body) : page.body);
  });
  await new Promise<void>((listening) =>
    server.listen(0, '127.0.0.1', listening),
  );
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () => new Promise((closed) => server.close(() => closed())),
  };
}

/**
 * The sign-up service as `npm start` runs it, after `npm run build`'s two
 * builds: `dist-server/start.mjs` in a process of its own, on loopback, its
 * accounts in a new PGlite directory under the OS temp dir, checking no
 * site (`MONITOR=off`: no request may leave the machine), every other
 * setting at its default (docs/contract.md).
 *
 * @throws Error with its output when it exits before `/healthz` answers, or
 *   has not answered within a minute
 */
async function startOurs(): Promise<Served> {
  buildPage({ distDir: DIST });
  buildServerBundle();
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'vigil-bench-data-'));
  const output: string[] = [];
  const child = spawn(
    process.execPath,
    ['--enable-source-maps', SERVER_BUNDLE],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        HOST: '127.0.0.1',
        PORT: String(port),
        DATA_DIR: dataDir,
        MONITOR: 'off',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child.stdout.on('data', (chunk: Buffer) => output.push(String(chunk)));
  child.stderr.on('data', (chunk: Buffer) => output.push(String(chunk)));
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const origin = `http://127.0.0.1:${port}`;
  const close = async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 60_000;
  const healthy = () =>
    fetch(`${origin}/healthz`).then(
      (response) => response.ok,
      () => false,
    );
  while (!(await healthy())) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await close();
      throw new Error(`The service did not start:\n${output.join('')}`);
    }
    await new Promise((wait) => setTimeout(wait, 250));
  }
  return { origin, close };
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
  saveTrace: boolean,
): Promise<Run> {
  const output = join(outputDir, `run-${index}.json`);
  const args = [
    url,
    // Lighthouse writes the trace beside the report: run-<index>-0.trace.json.
    ...(saveTrace ? ['--save-assets'] : []),
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

/** What Chromium asks for (its `Accept-Encoding`). */
const BROWSER_ENCODINGS = 'gzip, deflate, br, zstd';

type Sizes = Record<Kind, { gzip: number; browser: number }>;

async function transferSizes(urls: Record<Kind, string[]>): Promise<Sizes> {
  const sizes = {} as Sizes;
  for (const kind of ['html', 'css', 'js'] as const) {
    let gzip = 0;
    let browser = 0;
    for (const url of new Set(urls[kind])) {
      gzip += await bodyBytes(url, 'gzip');
      browser += await bodyBytes(url, BROWSER_ENCODINGS);
    }
    sizes[kind] = { gzip, browser };
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
  /** The stack floor's cell: a dash when it was not run. */
  const floor = (key: Metric, format: (value: number) => string) =>
    results.floor.length > 0 ? format(m('floor', key)) : '–';
  return [
    [
      'Performance score',
      String(m('ours', 'score')),
      String(m('baseline', 'score')),
      ratio(m('ours', 'score'), m('baseline', 'score')),
      floor('score', String),
    ],
    ...(['fcp', 'lcp', 'tbt'] as const).map((key) => [
      key.toUpperCase(),
      ms(m('ours', key)),
      ms(m('baseline', key)),
      ratio(m('ours', key), m('baseline', key)),
      floor(key, ms),
    ]),
    [
      'CLS',
      m('ours', 'cls').toFixed(3),
      m('baseline', 'cls').toFixed(3),
      ratio(m('ours', 'cls'), m('baseline', 'cls')),
      floor('cls', (value) => value.toFixed(3)),
    ],
  ];
}

function byteRows(sizes: Record<'ours' | 'baseline', Sizes>): string[][] {
  const encodings = { gzip: 'gzip', browser: 'as Chromium asks' } as const;
  const rows: string[][] = [];
  for (const kind of ['html', 'css', 'js'] as const) {
    for (const [encoding, label] of Object.entries(encodings)) {
      const key = encoding as keyof typeof encodings;
      const o = sizes.ours[kind][key];
      const b = sizes.baseline[kind][key];
      rows.push([
        `${kind.toUpperCase()} (${label})`,
        kb(o),
        kb(b),
        ratio(o, b),
      ]);
    }
  }
  for (const [encoding, label] of Object.entries(encodings)) {
    const key = encoding as keyof typeof encodings;
    const total = (s: Sizes) => s.html[key] + s.css[key] + s.js[key];
    rows.push([
      `Total (${label})`,
      kb(total(sizes.ours)),
      kb(total(sizes.baseline)),
      ratio(total(sizes.ours), total(sizes.baseline)),
    ]);
  }
  return rows;
}

/** The floor + 7.25 KiB of ADR-0058, Brotli. */
const ABOVE_FLOOR_BUDGET = 7.25 * 1024;

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
/** Issue 49's targets: the devtools LCP ratio, and the simulated TBT. */
const TARGET = { devtoolsLcpRatio: 1.15, simulatedTbtMs: 150 } as const;

/** The targets, each with its median and whether it is met. */
function verdict(results: Record<Model, Record<Page, Run[]>>): string {
  const m = (model: Model, page: Page, key: Metric) =>
    median(results[model][page].map((run) => run[key]));
  const lcpRatio =
    m('devtools', 'ours', 'lcp') / m('devtools', 'baseline', 'lcp');
  const tbt = m('simulate', 'ours', 'tbt');
  const met = (ok: boolean) => (ok ? 'met' : '**not met**');
  return [
    `- LCP, devtools throttling: ${ms(m('devtools', 'ours', 'lcp'))} against the plain form's ${ms(m('devtools', 'baseline', 'lcp'))}, **${lcpRatio.toFixed(2)}×** (target at most ${TARGET.devtoolsLcpRatio}×: ${met(lcpRatio <= TARGET.devtoolsLcpRatio)})`,
    `- LCP, simulated: ${ratio(m('simulate', 'ours', 'lcp'), m('simulate', 'baseline', 'lcp'))}×`,
    `- TBT, simulated: **${ms(tbt)}** (target at most ${TARGET.simulatedTbtMs} ms: ${met(tbt <= TARGET.simulatedTbtMs)}); devtools: ${ms(m('devtools', 'ours', 'tbt'))}`,
  ].join('\n');
}

/** Runs the benchmark and prints (and writes) its tables. */
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string', default: '5' },
      floor: { type: 'boolean', default: false },
      traces: { type: 'boolean', default: false },
    },
  });
  const runs = Math.max(5, Number(values.runs));
  const pages: readonly Page[] = values.floor
    ? PAGES
    : PAGES.filter((page) => page !== 'floor');
  const ours = await startOurs();
  const plain = await startPlainForm();
  const outputDir = mkdtempSync(join(tmpdir(), 'vigil-bench-'));
  const urls: Record<Page, string> = {
    ours: `${ours.origin}/signup`,
    baseline: `${plain.origin}/`,
    floor: `${plain.origin}/floor`,
  };
  const results: Record<Model, Record<Page, Run[]>> = {
    simulate: { ours: [], baseline: [], floor: [] },
    devtools: { ours: [], baseline: [], floor: [] },
  };
  let count = 0;
  /** With `--traces`: each devtools run's page, LCP and trace. */
  const traces: string[] = [];
  const loadAtStart = loadavg();
  try {
    for (let index = 0; index < runs; index += 1) {
      for (const model of MODELS) {
        for (const page of pages) {
          console.log(`Lighthouse run ${index + 1}/${runs}: ${model}, ${page}`);
          const saveTrace = values.traces && model === 'devtools';
          const run = await lighthouse(
            urls[page],
            model,
            outputDir,
            (count += 1),
            saveTrace,
          );
          results[model][page].push(run);
          if (saveTrace) {
            traces.push(
              `${page}: LCP ${ms(run.lcp)}, ${join(outputDir, `run-${count}-0.trace.json`)}`,
            );
          }
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
    const header = ['', 'ours', 'plain form', 'ours / plain form'];
    const timingHeader = [...header, 'stack floor'];
    const sections = [
      `### Against the targets\n\n${verdict(results)}`,
      ...MODELS.map(
        (model) =>
          `### Throttling: ${model}\n\n${markdownTable(timingHeader, timingRows(results[model]))}\n\nScore/LCP (ms) of each run: ours ${results[model].ours.map((run) => `${run.score}/${Math.round(run.lcp)}`).join(', ')}; plain form ${results[model].baseline.map((run) => `${run.score}/${Math.round(run.lcp)}`).join(', ')}.`,
      ),
      `### Bytes a visit transfers\n\n${markdownTable(header, byteRows(sizes))}`,
      `### The JavaScript\n\nThe stack: ${STACK_PACKAGES.join(', ')}, with their dependencies. Later chunks are listed, not counted in the initial JS.\n\n${markdownTable(['', 'gzip', 'brotli'], compositionRows())}`,
    ];
    const report = `# Benchmark results

Written by \`npm run bench${values.floor ? ' -- --floor' : ''}\` on ${new Date().toISOString()}: Lighthouse
${first.ours[0]?.lighthouseVersion} (mobile preset: slow 4G, 4× CPU
slowdown), ${chromium}, ${runs} runs of each page under each throttling
model, alternating, medians; the load average (1, 5, 15 min) was
${load(loadAtStart)} when the runs started and ${load(loadAtEnd)} when they
ended. Ours is the sign-up page as \`npm start\` serves it (both builds,
then \`dist-server/start.mjs\` on a new data directory). The plain form
(bench/baseline.html) is what a visitor would otherwise get: the same
fields, labels and hints, a 300×78 box where the captcha goes, a small
stylesheet of its own and a 10-line submit script, from a bare
\`node:http\` server with gzip. ${values.floor ? 'The stack floor page is the plain form plus React and ReactDOM alone, evaluated after the first paint as our page starts its script: what any React page pays.' : 'The stack floor page (`--floor`: the plain form plus React and ReactDOM, evaluated after the first paint) was not run.'}
Google's reCAPTCHA requests are blocked (unreachable here). Bytes: what
the servers send for the page's same-origin HTML, CSS and JS with
\`Accept-Encoding: gzip\` and with what Chromium asks for
(\`${BROWSER_ENCODINGS}\`).

${sections.join('\n\n')}
`;
    console.log(`\n${sections.join('\n\n')}\n`);
    writeFileSync(RESULTS, report);
    console.log(`Written to ${RESULTS}`);
    if (traces.length > 0) {
      console.log(
        `\nThe devtools runs' traces (npm run bench:trace -- <trace>):\n${traces.join('\n')}`,
      );
    }
  } finally {
    await ours.close();
    await plain.close();
  }
}

await main();
