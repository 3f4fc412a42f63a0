/**
 * `npm test`: everything a change needs (docs/testing.md), in two lanes
 * that run side by side:
 *
 * - the type check, lint, then the `unit`, then the `server` projects, one
 *   after another, stopping at the first that fails; its output is shown
 *   as it comes;
 * - the browser tests in Chromium (`npm run test:browser`), whose output is
 *   shown when it ends.
 *
 * Why two lanes (D86): the browser tests spend most of their time waiting
 * on pages, and use about a third of two cores; the node steps use both.
 * Side by side they take the longer lane's time instead of the sum.
 * `npm run test:engines` (Firefox and WebKit) is a command of its own,
 * which CI runs after this one.
 *
 * At its end it prints each step's time, each lane's and the total (wall
 * clock). Exits with the first failing step's code, or 0.
 */
import { spawn } from 'node:child_process';

type Step = 'typecheck' | 'lint' | 'test:unit' | 'test:server' | 'test:browser';

const LANES: { steps: Step[]; live: boolean }[] = [
  { steps: ['typecheck', 'lint', 'test:unit', 'test:server'], live: true },
  { steps: ['test:browser'], live: false },
];

interface StepResult {
  step: Step;
  seconds: number;
  status: number;
  signal: NodeJS.Signals | null;
}

/** Runs `npm run <step>`; its output goes to the terminal, or to `held`. */
function run(step: Step, held: Buffer[] | undefined): Promise<StepResult> {
  const started = performance.now();
  const child = spawn('npm', ['run', step], {
    stdio: held ? ['ignore', 'pipe', 'pipe'] : 'inherit',
  });
  child.stdout?.on('data', (chunk: Buffer) => held?.push(chunk));
  child.stderr?.on('data', (chunk: Buffer) => held?.push(chunk));
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

async function runLane({ steps, live }: (typeof LANES)[number]) {
  const held: Buffer[] | undefined = live ? undefined : [];
  const results: StepResult[] = [];
  for (const step of steps) {
    const result = await run(step, held);
    results.push(result);
    if (result.status !== 0) break;
  }
  if (held) {
    process.stdout.write(
      `\n── output of ${steps.join(', ')} ──\n${Buffer.concat(held).toString()}`,
    );
  }
  return results;
}

const started = performance.now();
const lanes = await Promise.all(LANES.map(runLane));
const total = (performance.now() - started) / 1000;

const seconds = (value: number) => `${value.toFixed(0).padStart(5)} s`;
const lines = lanes.map((results, index) => {
  const steps = results.map(
    ({ step, seconds: time, status, signal }) =>
      `    ${step.padEnd(12)} ${seconds(time)}${status === 0 ? '' : `  (failed${signal ? ` on ${signal}` : ''})`}`,
  );
  const laneTime = results.reduce((sum, result) => sum + result.seconds, 0);
  return `  lane ${index + 1}: ${seconds(laneTime)}\n${steps.join('\n')}`;
});
console.log(
  `\nnpm test, by lane and step (the lanes run side by side):\n${lines.join('\n')}\n  ${'total (wall clock)'.padEnd(18)} ${seconds(total)}`,
);
const failed = lanes.flat().find((result) => result.status !== 0);
process.exit(failed ? failed.status : 0);
