/**
 * The rate limit under concurrent load, on a real listening server on
 * loopback (127.0.0.1, a free port) driven by autocannon: 50 simultaneous
 * valid sign-ups from one address, each with its own e-mail, must yield
 * exactly `SIGNUP_RATE_LIMIT` accounts and `CSAPI_API_RATE_LIMIT_REACHED`
 * for the rest; then a bounded flood must get nothing more through, raise no
 * server error and leave the server answering. Every run is bounded in
 * count (`amount`) and time (autocannon's per-request `timeout` and the
 * test's own).
 */
import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { SIGN_UP_PATH } from '../../contract/signUp';
import {
  apiServer,
  contractProblem,
  FORM,
  validSignUp,
} from './support/apiServer';

const SIMULTANEOUS = 50;
const FLOOD = 2_000;

let app: FastifyInstance | undefined;

afterEach(async () => {
  await app?.close();
  app = undefined;
});

/** How simultaneous the load was, as the server saw it. */
const seen = { open: 0, maxOpen: 0, received: 0, beforeFirstAnswer: 0 };

// autocannon runs in this process, on the server's event loop, so without
// help its requests reach the server nearly one after another. The gate
// holds each request on arrival, before the rate limiter (a route hook,
// which runs after this application hook), until `hold` requests have
// arrived, then lets them all through at once: they race through the rate
// limiter and the handler together. A deadline opens it regardless, so a
// lost request cannot hang the test.
const GATE_DEADLINE_MS = 5_000;

/**
 * Starts the server on 127.0.0.1 with this limit; returns its origin.
 *
 * @param hold how many requests the gate gathers before releasing them; 0:
 *   no gate
 */
async function listen(rateLimit: number, hold = 0): Promise<string> {
  Object.assign(seen, { open: 0, maxOpen: 0, received: 0 });
  seen.beforeFirstAnswer = 0;
  const server = await apiServer({ rateLimit });
  app = server;
  const waiting: (() => void)[] = [];
  let open = hold === 0;
  const release = () => {
    open = true;
    for (const go of waiting.splice(0)) go();
  };
  const deadline = setTimeout(release, GATE_DEADLINE_MS);
  server.addHook('onClose', async () => clearTimeout(deadline));
  server.addHook('onRequest', async () => {
    seen.received += 1;
    if (open) return;
    const arrived = new Promise<void>((go) => waiting.push(go));
    if (waiting.length >= hold) release();
    await arrived;
  });
  server.addHook('onResponse', async () => {
    if (seen.beforeFirstAnswer === 0) seen.beforeFirstAnswer = seen.received;
  });
  await server.listen({ port: 0, host: '127.0.0.1' });
  server.server.on('connection', (socket) => {
    seen.open += 1;
    seen.maxOpen = Math.max(seen.maxOpen, seen.open);
    socket.on('close', () => {
      seen.open -= 1;
    });
  });
  const { port } = server.server.address() as AddressInfo;
  return `http://127.0.0.1:${port}`;
}

interface Tally {
  result: autocannon.Result;
  byCode: Map<string, number>;
  problems: string[];
  tokens: Set<string>;
}

/**
 * Sends `amount` sign-ups over `connections` connections, each with a body
 * of its own, and tallies the answers by `code` (`success` for accounts).
 */
async function fire(
  url: string,
  connections: number,
  amount: number,
): Promise<Tally> {
  const byCode = new Map<string, number>();
  const problems: string[] = [];
  const tokens = new Set<string>();
  const result = await autocannon({
    url,
    connections,
    amount,
    pipelining: 1,
    timeout: 10,
    requests: [
      {
        method: 'POST',
        path: SIGN_UP_PATH,
        headers: { 'content-type': FORM },
        setupRequest: (request) => ({
          ...request,
          body: validSignUp().toString(),
        }),
        onResponse: (status, body, _context, headers) => {
          const contentType = headers?.['content-type'];
          const problem = contractProblem(
            status,
            typeof contentType === 'string' ? contentType : undefined,
            body,
          );
          if (problem) {
            problems.push(problem);
            return;
          }
          const answer = JSON.parse(body) as {
            success: boolean;
            code?: string;
            data?: { one_time_auth: { token: string } };
          };
          const key = answer.success ? 'success' : String(answer.code);
          byCode.set(key, (byCode.get(key) ?? 0) + 1);
          if (answer.data) tokens.add(answer.data.one_time_auth.token);
        },
      },
    ],
  });
  return { result, byCode, problems, tokens };
}

describe(`${SIMULTANEOUS} simultaneous sign-ups from one address`, () => {
  // 5 is SIGNUP_RATE_LIMIT's default (docs/contract.md); 1 and 49 are the
  // edges.
  it.each([1, 5, 49])(
    'SIGNUP_RATE_LIMIT=%i: exactly that many accounts, the rest refused',
    async (limit) => {
      const url = await listen(limit, SIMULTANEOUS);
      const { result, byCode, problems, tokens } = await fire(
        url,
        SIMULTANEOUS,
        SIMULTANEOUS,
      );
      console.log(
        `rate limit under load: ${SIMULTANEOUS} simultaneous sign-ups on ` +
          `${result.connections} connections (${seen.maxOpen} open at ` +
          `once, ${seen.beforeFirstAnswer} received before the first ` +
          `answer), limit ${limit}: ` +
          `${byCode.get('success') ?? 0} accepted, ` +
          `${byCode.get('CSAPI_API_RATE_LIMIT_REACHED') ?? 0} refused, ` +
          `${result.errors} errors, ${result.timeouts} time-outs`,
      );
      expect(problems).toEqual([]);
      // All 50 were at the server at once, before any answer.
      expect(seen.maxOpen).toBe(SIMULTANEOUS);
      expect(seen.beforeFirstAnswer).toBe(SIMULTANEOUS);
      expect(result.errors).toBe(0);
      expect(result.timeouts).toBe(0);
      expect(result.requests.sent).toBe(SIMULTANEOUS);
      expect(result['2xx']).toBe(limit);
      expect(result.non2xx).toBe(SIMULTANEOUS - limit);
      expect(Object.fromEntries(byCode)).toEqual({
        success: limit,
        ...(limit < SIMULTANEOUS && {
          CSAPI_API_RATE_LIMIT_REACHED: SIMULTANEOUS - limit,
        }),
      });
      expect(tokens.size).toBe(limit);
    },
  );
});

describe('a flood after the limit', () => {
  it(`${FLOOD} more requests: none through, no server error, still answering`, async () => {
    const limit = 5;
    const url = await listen(limit, SIMULTANEOUS);
    const first = await fire(url, SIMULTANEOUS, SIMULTANEOUS);
    expect(first.byCode.get('success')).toBe(limit);

    const flood = await fire(url, 20, FLOOD);
    console.log(
      `rate limit under load: flood of ${flood.result.requests.sent} requests` +
        ` on 20 connections in ${flood.result.duration.toFixed(2)} s, ` +
        `${flood.byCode.get('CSAPI_API_RATE_LIMIT_REACHED') ?? 0} refused, ` +
        `${flood.byCode.get('success') ?? 0} accepted, ` +
        `${flood.result['5xx']} server errors, ` +
        `latency p99 ${flood.result.latency.p99} ms`,
    );
    expect(flood.problems).toEqual([]);
    expect(flood.result.errors).toBe(0);
    expect(flood.result.timeouts).toBe(0);
    expect(flood.result['5xx']).toBe(0);
    expect(Object.fromEntries(flood.byCode)).toEqual({
      CSAPI_API_RATE_LIMIT_REACHED: FLOOD,
    });

    // The server still serves the page, and another address may sign up.
    expect((await fetch(`${url}/signup`)).status).toBe(200);
    const other = await app?.inject({
      method: 'POST',
      url: SIGN_UP_PATH,
      headers: { 'content-type': FORM },
      payload: validSignUp().toString(),
      remoteAddress: '192.0.2.7',
    });
    expect(other?.statusCode).toBe(200);
  });
});
