/**
 * The sign-up load of `npm run bench:alerts`, in a process of its own so
 * that it shares no event loop with the service it measures: autocannon
 * against the sign-up API on loopback, as scripts/bench/benchMonitorLoad.ts
 * drives it (every request a distinct valid sign-up whose site is under
 * `site.test`), but with no fixed duration: it runs until SIGTERM, and
 * keeps when each answer ended (`Date.now()`) and how long it took, so
 * that the bench can cut the windows it compares (a stretch with no
 * incident, the stretch an incident's alerts are delivered in) out of
 * one run afterwards. It prints `STARTED` once the first answer came;
 * on SIGTERM it writes {@link LoadRecord} as JSON to the `--out` file,
 * prints `DONE`, and exits (1 unless every answer was 200 with
 * `success`).
 *
 * Usage: `node --import tsx scripts/bench/benchAlertsLoad.ts --origin
 * http://127.0.0.1:<port> --sites http://site.test:<port>/site --run <id>
 * --out <file> [--connections 8]`
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { SIGN_UP_PATH } from '../../contract/signUp';

const { values: options } = parseArgs({
  options: {
    origin: { type: 'string' },
    sites: { type: 'string' },
    run: { type: 'string', default: Date.now().toString(36) },
    out: { type: 'string' },
    connections: { type: 'string', default: '8' },
  },
});
const { origin = '', sites, run, out } = options;
// Loopback only: the service under test listens there.
if (!origin.startsWith('http://127.0.0.1:') || !sites || !out) {
  throw new Error(
    '--origin must be http://127.0.0.1:<port>; --sites and --out are needed',
  );
}

/** What one run of the load saw. */
export interface LoadRecord {
  /** When each 200 ended, `Date.now()` in ms, in order. */
  ends: number[];
  /** How long each took, ms, in the same order. */
  latencies: number[];
  /** Answers that were not a 200 with `success`, and errors. */
  failed: {
    non2xx: number;
    errors: number;
    timeouts: number;
    mismatches: number;
  };
}

let signUps = 0;
/** A valid sign-up with its own address and its own site path. */
function body(): string {
  signUps += 1;
  return new URLSearchParams({
    name: 'Bench User',
    email: `bench-alerts-${run}-${signUps}@example.com`,
    'g-recaptcha-response': 'bench-token',
    newsletter: '1',
    url: `${sites}?n=signup-${run}-${signUps}`,
  }).toString();
}

const ends: number[] = [];
const latencies: number[] = [];
let started = false;
const instance = autocannon(
  {
    url: origin,
    connections: Number(options.connections),
    // Until SIGTERM stops it.
    duration: 24 * 3600,
    requests: [
      {
        method: 'POST',
        path: SIGN_UP_PATH,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        setupRequest: (sent: autocannon.Request) => ({
          ...sent,
          body: body(),
        }),
      },
    ],
    verifyBody: (answer) => String(answer).startsWith('{"success":true,'),
  },
  (error, result) => {
    if (error) throw error;
    const { non2xx, errors, timeouts, mismatches } = result;
    const record: LoadRecord = {
      ends,
      latencies,
      failed: { non2xx, errors, timeouts, mismatches },
    };
    // A file, not stdout: a pipe's writes may be cut off by the exit.
    writeFileSync(out, JSON.stringify(record));
    console.log('DONE');
    process.exit(non2xx + errors + timeouts + mismatches > 0 ? 1 : 0);
  },
);
instance.on('response', (_client, status, _bytes, ms) => {
  if (status !== 200) return;
  ends.push(Date.now());
  latencies.push(ms);
  if (!started) {
    started = true;
    console.log('STARTED');
  }
});
process.once('SIGTERM', () => instance.stop());
