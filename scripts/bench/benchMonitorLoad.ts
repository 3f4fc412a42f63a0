/**
 * The sign-up load of `npm run bench:monitor`, in a process of its own so
 * that it shares no event loop with the service it measures: autocannon
 * against the sign-up API on loopback, every request a distinct valid
 * sign-up (the captcha's test key: any non-empty token passes) whose site
 * is under `site.test`, so that it becomes a monitor the bench's resolver
 * knows. It warms up, prints `MEASURING` when the measured part starts,
 * then one line of JSON: the measured part's sign-ups per second, p50 and
 * p99 in ms, and count. It exits 1, saying why, unless every answer was
 * 200 with `success`.
 *
 * Usage: `node --import tsx scripts/bench/benchMonitorLoad.ts --origin
 * http://127.0.0.1:<port> --sites http://site.test:<port>/site --run <id>
 * [--connections 8] [--warmup 3] [--duration 20]`
 */
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { SIGN_UP_PATH } from '../../contract/signUp';

const { values: options } = parseArgs({
  options: {
    origin: { type: 'string' },
    sites: { type: 'string' },
    run: { type: 'string', default: Date.now().toString(36) },
    connections: { type: 'string', default: '8' },
    warmup: { type: 'string', default: '3' },
    duration: { type: 'string', default: '20' },
  },
});
const { origin = '', sites, run } = options;
// Loopback only: the service under test listens there.
if (!origin.startsWith('http://127.0.0.1:') || !sites) {
  throw new Error(
    '--origin must be http://127.0.0.1:<port>; --sites is needed',
  );
}
const connections = Number(options.connections);

let signUps = 0;
/** A valid sign-up with its own address and its own site path. */
function body(): string {
  signUps += 1;
  const email = `bench-monitor-${run}-${signUps}@example.com`;
  const url = `${sites}?n=signup-${run}-${signUps}`;
  return new URLSearchParams({
    name: 'Bench User',
    email,
    'g-recaptcha-response': 'bench-token',
    newsletter: '1',
    url,
  }).toString();
}

/** Sign-ups per second, latency percentiles (ms) and count of one part. */
interface Figures {
  rate: number;
  p50: number;
  p99: number;
  count: number;
}

async function load(seconds: number): Promise<Figures> {
  const latencies: number[] = [];
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: origin,
        connections,
        duration: seconds,
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
      (error, done) => (error ? reject(error) : resolve(done)),
    );
    // autocannon's histogram keeps whole milliseconds: keep the exact times.
    instance.on('response', (_client, status, _bytes, ms) => {
      if (status === 200) latencies.push(ms);
    });
  });
  const { non2xx, errors, timeouts, mismatches, statusCodeStats } = result;
  if (non2xx + errors + timeouts + mismatches > 0) {
    const failed = { non2xx, statusCodeStats, errors, timeouts, mismatches };
    throw new Error(`sign-ups failed: ${JSON.stringify(failed)}`);
  }
  const sorted = latencies.sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.ceil(q * sorted.length) - 1] ?? NaN;
  return {
    rate: sorted.length / result.duration,
    p50: at(0.5),
    p99: at(0.99),
    count: sorted.length,
  };
}

await load(Number(options.warmup));
console.log('MEASURING');
console.log(JSON.stringify(await load(Number(options.duration))));
