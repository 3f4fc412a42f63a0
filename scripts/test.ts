/**
 * `npm test`: everything a change needs (docs/testing.md), one step after
 * another, stopping at the first that fails: the type check, lint, the
 * `unit` and `server` projects, then the browser tests in Chromium
 * (`npm run test:browser`). `npm run test:engines` (the sweeps of every
 * state, Firefox and WebKit) is a command of its own, which CI runs after
 * this one.
 *
 * Why one step at a time ([D86](../docs/decisions.md#D86)): issue 36 ran the browser step beside the
 * node steps. On two cores that was no faster than one step after another
 * (665 to 730 s side by side), since the browsers and the node steps'
 * workers took the cores from each other: the unit step went from 45 s
 * alone to over 190 s. Loaded that way, limits meant for a hang failed
 * twice. Each step alone uses both cores: the node projects one file per
 * core, the browser project two files at a time.
 *
 * At its end it prints each step's time and the total (wall clock). Exits
 * with the failing step's code, or 0.
 */
import { spawn } from 'node:child_process';

const STEPS = [
  'typecheck',
  'lint',
  'test:unit',
  'test:server',
  'test:browser',
] as const;

interface StepResult {
  step: (typeof STEPS)[number];
  seconds: number;
  status: number;
  signal: NodeJS.Signals | null;
}

/** Runs `npm run <step>`, its output going to the terminal as it comes. */
function run(step: StepResult['step']): Promise<StepResult> {
  const started = performance.now();
  const child = spawn('npm', ['run', step], { stdio: 'inherit' });
  return new Promise((resolve) => {
    child.on('close', (status, signal) =>
      resolve({
        step,
        seconds: (performance.now() - started) / 1000,
        status: status ?? 1,
        signal,
      }),
    );
  });
}

const started = performance.now();
const results: StepResult[] = [];
for (const step of STEPS) {
  const result = await run(step);
  results.push(result);
  if (result.status !== 0) break;
}
const total = (performance.now() - started) / 1000;

const seconds = (value: number) => `${value.toFixed(0).padStart(5)} s`;
const lines = results.map(
  ({ step, seconds: time, status, signal }) =>
    `  ${step.padEnd(18)} ${seconds(time)}${status === 0 ? '' : `  (failed${signal ? ` on ${signal}` : ''})`}`,
);
console.log(
  `\nnpm test, by step:\n${lines.join('\n')}\n  ${'total (wall clock)'.padEnd(18)} ${seconds(total)}`,
);
const failed = results.find((result) => result.status !== 0);
process.exit(failed ? failed.status : 0);
