/**
 * `npm test`: the type check, lint, and the unit, server and browser
 * projects, one after another (docs/testing.md), stopping at the first that
 * fails; then the time each took and the total, so a slow part shows.
 * Exits with the failing step's code, or 0.
 */
import { spawnSync } from 'node:child_process';

const STEPS = [
  'typecheck',
  'lint',
  'test:unit',
  'test:server',
  'test:browser',
] as const;

const split: string[] = [];
let total = 0;
let failed = 0;
for (const step of STEPS) {
  const started = performance.now();
  const { status, signal } = spawnSync('npm', ['run', step], {
    stdio: 'inherit',
  });
  const seconds = (performance.now() - started) / 1000;
  total += seconds;
  split.push(`  ${step.padEnd(12)} ${seconds.toFixed(0).padStart(5)} s`);
  if (status !== 0) {
    failed = status ?? 1;
    split.push(`  (${step} failed${signal ? ` on ${signal}` : ''})`);
    break;
  }
}
console.log(
  `\nnpm test, by step:\n${split.join('\n')}\n  ${'total'.padEnd(12)} ${total.toFixed(0).padStart(5)} s`,
);
process.exit(failed);
