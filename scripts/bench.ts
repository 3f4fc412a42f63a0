/**
 * `npm run bench`: builds the page (scripts/build.ts), serves it with the
 * real local server (server/app.ts) and the plain-HTML baseline
 * (bench/baseline.html and bench/baseline.css, precompressed and served the
 * same way) on loopback, runs Lighthouse's mobile preset (simulated slow 4G
 * and 4× CPU) on both in alternation, and prints the medians of the
 * performance score, FCP, LCP, TBT and CLS, the bytes of HTML, CSS and JS
 * a visit transfers with gzip and with Brotli, and the ratios ours /
 * baseline. The table is also written to bench/results.md.
 *
 * Google's reCAPTCHA cannot be reached from this machine: its requests are
 * blocked in both pages (Lighthouse's `--blocked-url-patterns`), so neither
 * run pays for it. Not part of `npm test`: timings vary with the machine.
 *
 * Usage: `npm run bench [-- --runs 5]`
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import fastifyStatic from '@fastify/static';
import Fastify from 'fastify';
import { buildServer } from '../server/app';
import { readConfig } from '../src/config';
import { buildPage } from './build';

const ROOT = resolve(import.meta.dirname, '..');
const DIST = join(ROOT, 'dist');
const RESULTS = join(ROOT, 'bench/results.md');
const CHROME_PATH = process.env.CHROME_PATH ?? '/usr/bin/chromium';
const CHROME_FLAGS = [
  '--headless=new',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
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

/** Serves the baseline page, precompressed like Parcel's output. */
async function startBaseline(): Promise<{
  origin: string;
  close: () => Promise<void>;
}> {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-baseline-'));
  for (const [from, to] of [
    ['baseline.html', 'index.html'],
    ['baseline.css', 'baseline.css'],
  ] as const) {
    const bytes = readFileSync(join(ROOT, 'bench', from));
    writeFileSync(join(dir, to), bytes);
    writeFileSync(join(dir, `${to}.gz`), gzipSync(bytes, { level: 9 }));
    writeFileSync(
      join(dir, `${to}.br`),
      brotliCompressSync(bytes, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
        },
      }),
    );
  }
  const app = Fastify();
  await app.register(fastifyStatic, {
    root: dir,
    index: false,
    preCompressed: true,
  });
  app.get('/signup', (_request, reply) => reply.sendFile('index.html'));
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
    apiOrigin: config.apiOrigin,
    rateLimit: 1000,
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
  outputDir: string,
  index: number,
): Promise<Run> {
  const output = join(outputDir, `run-${index}.json`);
  const args = [
    url,
    '--only-categories=performance',
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

/** Runs the benchmark and prints (and writes) its table. */
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { runs: { type: 'string', default: '3' } },
  });
  const runs = Math.max(1, Number(values.runs));
  buildPage({ distDir: DIST });
  const ours = await startOurs();
  const baseline = await startBaseline();
  const outputDir = mkdtempSync(join(tmpdir(), 'vigil-bench-'));
  const results: { ours: Run[]; baseline: Run[] } = { ours: [], baseline: [] };
  try {
    for (let index = 0; index < runs; index += 1) {
      for (const [name, server] of [
        ['ours', ours],
        ['baseline', baseline],
      ] as const) {
        console.log(`Lighthouse run ${index + 1}/${runs}: ${name}`);
        results[name].push(
          await lighthouse(
            `${server.origin}/signup`,
            outputDir,
            results.ours.length + results.baseline.length,
          ),
        );
      }
    }
    const sizes = {
      ours: await transferSizes(
        results.ours[0]?.urls ?? { html: [], css: [], js: [] },
      ),
      baseline: await transferSizes(
        results.baseline[0]?.urls ?? { html: [], css: [], js: [] },
      ),
    };
    const m = (
      name: 'ours' | 'baseline',
      key: 'score' | 'fcp' | 'lcp' | 'tbt' | 'cls',
    ) => median(results[name].map((run) => run[key]));
    const ms = (value: number) => `${Math.round(value)} ms`;
    const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
    const rows: [string, string, string, string][] = [
      [
        'Performance score',
        String(m('ours', 'score')),
        String(m('baseline', 'score')),
        ratio(m('ours', 'score'), m('baseline', 'score')),
      ],
      ...(['fcp', 'lcp', 'tbt'] as const).map(
        (key): [string, string, string, string] => [
          key.toUpperCase(),
          ms(m('ours', key)),
          ms(m('baseline', key)),
          ratio(m('ours', key), m('baseline', key)),
        ],
      ),
      [
        'CLS',
        m('ours', 'cls').toFixed(3),
        m('baseline', 'cls').toFixed(3),
        ratio(m('ours', 'cls'), m('baseline', 'cls')),
      ],
    ];
    for (const kind of ['html', 'js', 'css'] as const) {
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
    const chromium = execFileSync(CHROME_PATH, ['--version'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    const table = [
      '| | ours | baseline | ours / baseline |',
      '|---|---:|---:|---:|',
      ...rows.map((row) => `| ${row.join(' | ')} |`),
    ].join('\n');
    const perRun = (name: 'ours' | 'baseline') =>
      results[name]
        .map((run) => `${run.score}/${Math.round(run.lcp)}`)
        .join(', ');
    const report = `# Benchmark results

Written by \`npm run bench\` on ${new Date().toISOString()}: Lighthouse
${results.ours[0]?.lighthouseVersion} (mobile preset: simulated slow 4G, 4×
CPU slowdown), ${chromium}, ${runs} runs of each page, alternating, medians.
Google's reCAPTCHA requests are blocked in both pages (unreachable here).
Bytes: what the servers send for the page's same-origin HTML, CSS and JS
with \`Accept-Encoding: gzip\` and with \`br\`.

${table}

Score/LCP (ms) of each run: ours ${perRun('ours')}; baseline ${perRun('baseline')}.
`;
    console.log(`\n${table}\n`);
    console.log(
      `Per run (score/LCP ms): ours ${perRun('ours')}; baseline ${perRun('baseline')}`,
    );
    writeFileSync(RESULTS, report);
    console.log(`Written to ${RESULTS}`);
  } finally {
    await ours.close();
    await baseline.close();
  }
}

await main();
