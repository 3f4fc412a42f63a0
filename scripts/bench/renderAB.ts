/**
 * `npm run bench:render -- [--runs 15] <name>=<page.html> …`: how long the
 * renderer takes to paint each of several HTML files, alternated, for
 * finding what in a page's markup, stylesheet or inline script costs its
 * first paint (issue 49, docs/performance.md "Where the first paint's time
 * goes"). Each file is served as it is, with gzip and no other header, by
 * a bare `node:http` server on loopback; each load is a new browser
 * context of Debian's Chromium with the CPU slowed 4× (as Lighthouse's
 * mobile preset does) and no network throttling, and every `.js` request
 * and Google's reCAPTCHA blocked, so only the HTML's own work is timed.
 *
 * It prints, per file, the medians of the first contentful paint and of
 * the time from the response's end to that paint (PerformanceNavigationTiming
 * `responseEnd`, Paint Timing `first-contentful-paint`), in milliseconds.
 * Compare files within one run: single loads spread by tens of
 * milliseconds, and a whole run moves with the machine's load.
 *
 * Not part of `npm test`: a measurement.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import puppeteer from 'puppeteer-core';
import { CHROMIUM_FLAGS, findEngine } from '../../harness/engines';

/** One load's figures, in milliseconds. */
interface Load {
  fcp: number;
  afterResponse: number;
}

/** The median of a non-empty list (the mean of the middle two for an even count). */
function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const at = (index: number) => sorted[index] ?? NaN;
  return sorted.length % 2 ? at(middle) : (at(middle - 1) + at(middle)) / 2;
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { runs: { type: 'string', default: '15' } },
  });
  const runs = Number(values.runs);
  const pages = positionals.map((argument) => {
    const [name, file] = argument.split('=');
    if (!name || !file) throw new Error(`expected <name>=<file>: ${argument}`);
    return { name, body: gzipSync(readFileSync(file)) };
  });
  if (pages.length === 0 || !(runs >= 1)) {
    throw new Error('usage: bench:render -- [--runs N] <name>=<page.html> …');
  }
  const server = createServer((request, response) => {
    const page = pages.find((p) => request.url === `/${p.name}`);
    if (!page) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      'content-encoding': 'gzip',
    });
    response.end(page.body);
  });
  await new Promise<void>((listening) =>
    server.listen(0, '127.0.0.1', listening),
  );
  const { port } = server.address() as AddressInfo;
  const browser = await puppeteer.launch({
    executablePath: findEngine('chromium').executable,
    headless: true,
    // The tests' flags: no background requests (updates, sync) leave the
    // machine; the pages come from 127.0.0.1 and scripts are blocked.
    args: CHROMIUM_FLAGS,
  });
  const loads = new Map<string, Load[]>();
  try {
    for (let run = 0; run < runs; run += 1) {
      for (const page of pages) {
        const context = await browser.createBrowserContext();
        const tab = await context.newPage();
        const session = await tab.createCDPSession();
        await session.send('Emulation.setCPUThrottlingRate', { rate: 4 });
        await session.send('Network.enable');
        await session.send('Network.setBlockedURLs', {
          urls: ['*.js', '*google.com*', '*gstatic.com*'],
        });
        await tab.goto(`http://127.0.0.1:${port}/${page.name}`, {
          waitUntil: 'load',
        });
        const load = await tab.waitForFunction(() => {
          const [navigation] = performance.getEntriesByType(
            'navigation',
          ) as PerformanceNavigationTiming[];
          const [paint] = performance.getEntriesByName(
            'first-contentful-paint',
          );
          return navigation && paint
            ? {
                fcp: paint.startTime,
                afterResponse: paint.startTime - navigation.responseEnd,
              }
            : false;
        });
        const figures = loads.get(page.name) ?? [];
        figures.push((await load.jsonValue()) as Load);
        loads.set(page.name, figures);
        await context.close();
      }
      console.log(`run ${run + 1}/${runs}`);
    }
  } finally {
    await browser.close();
    server.close();
  }
  console.log(
    `\nmedians of ${runs} loads each, CPU 4x (ms): after the response's end, first contentful paint`,
  );
  for (const [name, figures] of loads) {
    const after = median(figures.map((f) => f.afterResponse));
    const fcp = median(figures.map((f) => f.fcp));
    console.log(
      `${name.padEnd(20)} ${after.toFixed(0).padStart(6)} ${fcp.toFixed(0).padStart(6)}`,
    );
  }
}

await main();
