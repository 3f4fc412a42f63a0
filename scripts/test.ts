/**
 * `npm test` and `npm run test:quick` (docs/testing.md).
 *
 * `npm test`: everything a change needs, stopping at the first step that
 * fails. It first checks that it runs on the pinned Node.js
 * (harness/run/pinnedRuntime.ts) and stops at once, with a sentence that
 * says what to do, when it does not. Then:
 *
 * 1. the prelude, side by side: the type check, lint, and the builds of the
 *    test pages (harness/page/buildPage.ts, all three configurations). Each
 *    is mostly one process on one core; one after another they took about
 *    a minute in a fresh clone, and the third build ran inside the browser
 *    step, beside a test file;
 * 2. the `unit` project, then `server` and `server-postgres` (one
 *    vitest run each: a run that mixed them made a worker of each file,
 *    harness/run/slowestFirst.ts);
 * 3. the browser tests in Chromium (`npm run test:browser`), which build
 *    nothing again.
 *
 * `npm run test:quick` (`--quick`), the inner loop: the type check
 * (incremental: a second run checks what changed) beside the one test page
 * the journey needs, then, side by side, the `unit` project on one worker,
 * the `server` project (PGlite) and the sign-up journey in Chromium.
 *
 * `npm run test:engines` (the sweeps of every state, Firefox and WebKit,
 * the full mail outage) is a command of its own, which CI runs after this
 * one.
 *
 * Why the test steps run one at a time (ADR-0086):
 * issue 36 ran the browser step beside the node steps. On two cores that
 * was no faster (665 to 730 s side by side), since the browsers and the
 * node steps' workers took the cores from each other, and loaded that way,
 * limits meant for a hang failed twice. Each test step alone uses both
 * cores: the node projects one file per core, the browser project two
 * files at a time.
 *
 * At its end it prints each step's time and the total (wall clock). Exits
 * with the failing step's code, or 0.
 */
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import {
  TEST_PAGES_BUILT,
  TEST_PAGES_NEEDED,
  testPageBuild,
} from '../harness/page/buildPage';
import {
  PROJECT_ROOT,
  TEST_BUILDS,
  type TestBuild,
} from '../harness/page/paths';
import { exitUnlessPinnedRuntime } from '../harness/run/pinnedRuntime';

interface StepResult {
  step: string;
  seconds: number;
  status: number;
  signal?: NodeJS.Signals | null;
}

/**
 * Runs a command, its output going to the terminal as it comes, or, when
 * `quiet`, kept and printed whole when it ends (side by side, the outputs
 * would interleave line by line).
 */
function run(
  step: string,
  command: string[],
  {
    env = {},
    quiet = false,
  }: { env?: NodeJS.ProcessEnv; quiet?: boolean } = {},
): Promise<StepResult> {
  const started = performance.now();
  const [file = 'npm', ...args] = command;
  const child = spawn(file, args, {
    cwd: PROJECT_ROOT,
    stdio: quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit',
    env: { ...process.env, ...env },
  });
  const output: Buffer[] = [];
  child.stdout?.on('data', (chunk: Buffer) => output.push(chunk));
  child.stderr?.on('data', (chunk: Buffer) => output.push(chunk));
  return new Promise((resolve) => {
    child.on('close', (status, signal) => {
      if (quiet) process.stdout.write(`\n> ${step}\n${Buffer.concat(output)}`);
      resolve({
        step,
        seconds: (performance.now() - started) / 1000,
        status: status ?? 1,
        signal,
      });
    });
  });
}

const { values } = parseArgs({ options: { quick: { type: 'boolean' } } });
const quick = values.quick ?? false;
// A run on another Node.js than the pinned one proves nothing: stop first.
exitUnlessPinnedRuntime(quick ? 'npm run test:quick' : 'npm test');
/** The pages the prelude builds: `npm test` all, `--quick` the journey's. */
const pages: TestBuild[] = quick
  ? ['tagged']
  : (Object.keys(TEST_BUILDS) as TestBuild[]);
const afterPrelude = {
  env: {
    [TEST_PAGES_BUILT]: pages.join(','),
    ...(quick && { [TEST_PAGES_NEEDED]: pages.join(',') }),
  },
};

const started = performance.now();
const results: StepResult[] = [];
const failed = () => results.some((result) => result.status !== 0);

const prelude = await Promise.all([
  run('typecheck', ['npm', 'run', 'typecheck'], { quiet: true }),
  ...(quick ? [] : [run('lint', ['npm', 'run', 'lint'], { quiet: true })]),
  ...pages.map((name) => {
    const { command, env } = testPageBuild(name);
    return run(`page ${name}`, command, { env, quiet: true });
  }),
]);
results.push(...prelude);
const preludeSeconds = (performance.now() - started) / 1000;

/**
 * Runs one step, or several side by side (their output kept and printed
 * when each ends), unless an earlier step failed.
 */
async function step(...commands: [string, string[]][]): Promise<void> {
  if (failed()) return;
  const quiet = commands.length > 1;
  results.push(
    ...(await Promise.all(
      commands.map(([name, command]) =>
        run(name, command, { ...afterPrelude, quiet }),
      ),
    )),
  );
}

if (quick) {
  // Three side by side, since each mostly leaves a core idle: `unit` on
  // one worker (on two it took as long, each worker importing every
  // module again: docs/testing.md), the `server` project (PGlite), whose
  // process files mostly wait (on the monitor's interval, on a service's
  // start), and the journey, one browser file that mostly waits on its
  // page. (`unit` from the start, beside the prelude, was no faster: 129
  // and 130 s, against 123 to 128 s.)
  await step(
    [
      'test:unit',
      ['npx', 'vitest', 'run', '--project', 'unit', '--maxWorkers=1'],
    ],
    [
      'test:server',
      ['npx', 'vitest', 'run', '--project', 'server', '--maxWorkers=2'],
    ],
    [
      'journey',
      ['npm', 'run', 'test:browser', '--', 'tests/browser/journey.test.ts'],
    ],
  );
} else {
  await step(['test:unit', ['npm', 'run', 'test:unit']]);
  await step(['test:server', ['npm', 'run', 'test:server']]);
  await step(['test:browser', ['npm', 'run', 'test:browser']]);
}
const total = (performance.now() - started) / 1000;

const seconds = (value: number) => `${value.toFixed(0).padStart(5)} s`;
const line = ({ step, seconds: time, status, signal }: StepResult) =>
  `  ${step.padEnd(20)} ${seconds(time)}${status === 0 ? '' : `  (failed${signal ? ` on ${signal}` : ''})`}`;
const preludeLines = prelude.map((result) => `  ${line(result)}`);
console.log(
  [
    `\nnpm ${quick ? 'run test:quick' : 'test'}, by step:`,
    `  ${'prelude, side by side'.padEnd(20)} ${seconds(preludeSeconds)}`,
    ...preludeLines,
    ...results.slice(prelude.length).map(line),
    `  ${'total (wall clock)'.padEnd(20)} ${seconds(total)}`,
  ].join('\n'),
);
const failure = results.find((result) => result.status !== 0);
process.exit(failure ? failure.status : 0);
