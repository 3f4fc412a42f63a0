/**
 * `npm run bench:trace -- <trace.json> [<trace.json> …]`: where a page's
 * first paint went, read from a Chromium trace (Lighthouse's
 * `--save-assets` writes one per run: `npm run bench -- --traces` keeps
 * them). For each trace it prints, in milliseconds from the navigation's
 * start (`navigationStart` of the page's main frame):
 *
 * - the document's request: sent, response headers, each chunk of its body,
 *   finished, and the bytes on the wire;
 * - the renderer main thread's work before the first contentful paint, by
 *   kind (parse HTML, style, layout, pre-paint and paint, script compile
 *   and run), with the tasks in order;
 * - the main thread's tasks of 50 ms or more after that paint, and the
 *   time they block (Total Blocking Time's measure);
 * - the first contentful paint, and whether the page's frame committed in
 *   a renderer other than the one the tab started in. (A new browsing
 *   context group, as `Cross-Origin-Opener-Policy` makes, need not mean a
 *   new renderer: in the traces of docs/performance.md it did not; it
 *   shows as a later, longer commit.)
 *
 * Not part of `npm test`: a trace is a measurement, and this only reads it.
 */
import { readFileSync } from 'node:fs';

/** One event of the Trace Event Format, as far as this script reads it. */
interface TraceEvent {
  name: string;
  cat: string;
  ph: string;
  ts: number;
  dur?: number;
  pid: number;
  tid: number;
  args?: {
    name?: string;
    frame?: string;
    data?: {
      url?: string;
      documentLoaderURL?: string;
      isLoadingMainFrame?: boolean;
      requestId?: string;
      encodedDataLength?: number;
      statusCode?: number;
      frame?: string;
      navigationId?: string;
    };
  };
}

/** The main thread's work, grouped as Chromium's performance panel does. */
const KINDS: Record<string, string> = {
  ParseHTML: 'parse HTML',
  ParseAuthorStyleSheet: 'parse CSS',
  UpdateLayoutTree: 'style',
  RecalculateStyles: 'style',
  Layout: 'layout',
  PrePaint: 'pre-paint and paint',
  Paint: 'pre-paint and paint',
  Layerize: 'pre-paint and paint',
  Commit: 'pre-paint and paint',
  EvaluateScript: 'script',
  'v8.compile': 'script',
  'v8.compileModule': 'script',
  FunctionCall: 'script',
  TimerFire: 'script',
  EventDispatch: 'script',
};

/** A trace's events, from Lighthouse's file or a bare array. */
function readEvents(path: string): TraceEvent[] {
  const parsed = JSON.parse(readFileSync(path, 'utf8')) as
    TraceEvent[] | { traceEvents: TraceEvent[] };
  return Array.isArray(parsed) ? parsed : parsed.traceEvents;
}

const ms = (microseconds: number) => `${(microseconds / 1000).toFixed(1)}`;

/**
 * The account of one trace's first paint, as lines of text.
 *
 * @throws Error when the trace has no main-frame navigation to an http(s)
 *   URL, or no first contentful paint after it
 */
export function firstPaintAccount(events: TraceEvent[]): string[] {
  const navigation = events.find(
    (event) =>
      event.name === 'navigationStart' &&
      event.args?.data?.isLoadingMainFrame === true &&
      /^https?:/.test(event.args.data.documentLoaderURL ?? ''),
  );
  if (!navigation) throw new Error('no main-frame navigation in the trace');
  const start = navigation.ts;
  const url = navigation.args?.data?.documentLoaderURL ?? '';
  const frame = navigation.args?.frame;
  const renderer = navigation.pid;
  const fcp = events.find(
    (event) =>
      event.name === 'firstContentfulPaint' &&
      event.pid === renderer &&
      (frame === undefined || event.args?.frame === frame) &&
      event.ts >= start,
  );
  if (!fcp) throw new Error('no first contentful paint in the trace');
  const lines = [`${url}`, `first contentful paint: ${ms(fcp.ts - start)} ms`];

  const blank = events.find(
    (event) =>
      event.name === 'navigationStart' &&
      event.args?.data?.isLoadingMainFrame === true &&
      event.pid !== renderer,
  );
  lines.push(
    blank
      ? `renderer: a new one for the page (pid ${renderer}; the tab began in pid ${blank.pid})`
      : `renderer: the one the tab began in (pid ${renderer})`,
  );

  // The document's request, by its URL, then by its request id.
  const sent = events.find(
    (event) =>
      event.name === 'ResourceSendRequest' && event.args?.data?.url === url,
  );
  const requestId = sent?.args?.data?.requestId;
  const ofRequest = (name: string) =>
    events.filter(
      (event) =>
        event.name === name && event.args?.data?.requestId === requestId,
    );
  if (sent && requestId) {
    lines.push(`document requested: ${ms(sent.ts - start)} ms`);
    for (const response of ofRequest('ResourceReceiveResponse')) {
      lines.push(
        `  response headers (${response.args?.data?.statusCode}): ${ms(response.ts - start)} ms`,
      );
    }
    for (const chunk of ofRequest('ResourceReceivedData')) {
      lines.push(
        `  body chunk, ${chunk.args?.data?.encodedDataLength} B: ${ms(chunk.ts - start)} ms`,
      );
    }
    for (const finish of ofRequest('ResourceFinish')) {
      lines.push(
        `  finished, ${finish.args?.data?.encodedDataLength} B on the wire: ${ms(finish.ts - start)} ms`,
      );
    }
  }

  // The renderer's main thread, from the navigation to the paint.
  const main = events.find(
    (event) =>
      event.ph === 'M' &&
      event.name === 'thread_name' &&
      event.pid === renderer &&
      event.args?.name === 'CrRendererMain',
  );
  const work = events.filter(
    (event) =>
      main !== undefined &&
      event.pid === renderer &&
      event.tid === main.tid &&
      event.ph === 'X' &&
      event.ts >= start &&
      event.ts < fcp.ts,
  );
  const tasks = work.filter((event) => event.name === 'RunTask');
  const byKind = new Map<string, number>();
  for (const event of work) {
    const kind = KINDS[event.name];
    // Only the outermost event of a kind counts: script inside a task's
    // FunctionCall is not counted again for its compile.
    const inside = work.some(
      (outer) =>
        outer !== event &&
        KINDS[outer.name] === kind &&
        outer.ts <= event.ts &&
        outer.ts + (outer.dur ?? 0) >= event.ts + (event.dur ?? 0),
    );
    if (kind && !inside) {
      byKind.set(kind, (byKind.get(kind) ?? 0) + (event.dur ?? 0));
    }
  }
  const busy = tasks.reduce((sum, task) => sum + (task.dur ?? 0), 0);
  lines.push(
    `main thread before the paint: ${ms(busy)} ms in ${tasks.length} tasks`,
  );
  for (const [kind, total] of [...byKind].sort((a, b) => b[1] - a[1])) {
    lines.push(`  ${kind}: ${ms(total)} ms`);
  }
  for (const task of tasks.filter((task) => (task.dur ?? 0) >= 2000)) {
    const inner = work
      .filter(
        (event) =>
          KINDS[event.name] &&
          event.ts >= task.ts &&
          event.ts < task.ts + (task.dur ?? 0),
      )
      .map((event) => `${event.name} ${ms(event.dur ?? 0)}`)
      .slice(0, 8)
      .join(', ');
    lines.push(
      `  task at ${ms(task.ts - start)} ms, ${ms(task.dur ?? 0)} ms: ${inner}`,
    );
  }
  lines.push(...longTasksAfter(events, renderer, main?.tid, fcp.ts, start));
  return lines;
}

/** What names a long task's work: its outermost script or lifecycle event. */
const TASK_WORK = new Set([
  'v8.evaluateModule',
  'EvaluateScript',
  'TimerFire',
  'FunctionCall',
  'EventDispatch',
  'ParseHTML',
  'Layout',
]);

/**
 * The renderer main thread's tasks of 50 ms or more after the first
 * contentful paint, to the end of the trace, and the time they block: each
 * task's time over 50 ms, summed, as Lighthouse's Total Blocking Time counts
 * it (Lighthouse stops at Time to Interactive; this reads to the trace's
 * end, so it can only count more).
 */
function longTasksAfter(
  events: TraceEvent[],
  renderer: number,
  mainThread: number | undefined,
  paint: number,
  start: number,
): string[] {
  const tasks = events.filter(
    (event) =>
      event.pid === renderer &&
      event.tid === mainThread &&
      event.name === 'RunTask' &&
      event.ts >= paint &&
      (event.dur ?? 0) >= 50_000,
  );
  const blocking = tasks.reduce(
    (sum, task) => sum + (task.dur ?? 0) - 50_000,
    0,
  );
  const lines = [
    `long tasks after the paint: ${tasks.length}, blocking ${ms(blocking)} ms`,
  ];
  for (const task of tasks) {
    const end = task.ts + (task.dur ?? 0);
    const work = events.find(
      (event) =>
        event.pid === renderer &&
        event.tid === mainThread &&
        TASK_WORK.has(event.name) &&
        event.ts >= task.ts &&
        event.ts < end,
    );
    const url = work?.args?.data?.url;
    lines.push(
      `  task at ${ms(task.ts - start)} ms, ${ms(task.dur ?? 0)} ms: ${work?.name ?? 'no script'}${url ? ` (${url.replace(/^.*\//, '')})` : ''}`,
    );
  }
  return lines;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const path of process.argv.slice(2)) {
    console.log(`\n${path}`);
    for (const line of firstPaintAccount(readEvents(path))) {
      console.log(`  ${line}`);
    }
  }
}
