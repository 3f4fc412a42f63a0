/**
 * The service as a process, on the run's engine (the embedded default, or
 * PostgreSQL in the `server-postgres` project): what is acknowledged
 * survives a restart and a SIGKILL in the middle of 16 clients' sign-ups;
 * SIGTERM finishes the request in flight, closes the database and exits 0;
 * no log line carries an e-mail address, a name, a token or a session
 * (docs/contract.md; ADR-0045, ADR-0048; docs/security.md).
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FORM, validSignUp } from './support/apiServer';
import {
  databaseEnv,
  startService,
  type ServiceProcess,
} from './support/serviceProcess';
import { SIGN_UP_PATH } from '../../contract/signUp';
import { scratchDatabase } from '../../harness/page/scratchDatabase';
import type { DatabaseSettings } from '../../server/db/database';

interface Acknowledged {
  email: string;
  name: string;
  token: string;
  sid: string;
  /** The login binding cookie the answer set, as `name=value`. */
  binding: string;
}

/** Everything every service of this file logged, for the last test. */
const logs: string[] = [];
/** Everything personal this file sent or was given. */
const secrets = new Set<string>();

let settings: DatabaseSettings;
let running: ServiceProcess | undefined;

async function start(): Promise<ServiceProcess> {
  running = await startService(databaseEnv(settings));
  return running;
}

async function stop(service: ServiceProcess, signal: NodeJS.Signals) {
  process.kill(service.pid, signal);
  const exit = await service.exited;
  logs.push(...service.output);
  if (running === service) running = undefined;
  return exit;
}

beforeAll(async () => {
  settings = await scratchDatabase();
});

afterAll(async () => {
  if (running) await stop(running, 'SIGKILL');
});

async function signUp(
  origin: string,
  fields: Record<string, string> = {},
): Promise<{ status: number; acknowledged?: Acknowledged }> {
  const body = validSignUp(fields);
  const email = body.get('email') ?? '';
  const name = body.get('name') ?? '';
  secrets.add(email);
  const response = await fetch(`${origin}${SIGN_UP_PATH}`, {
    method: 'POST',
    headers: { 'content-type': FORM },
    body,
  });
  const answer = (await response.json()) as {
    success: boolean;
    data?: { one_time_auth: { token: string; sid: string } };
  };
  if (!answer.success || !answer.data) return { status: response.status };
  const { token, sid } = answer.data.one_time_auth;
  // The login binding the answer set (ADR-0110), as the browser keeps it.
  const binding = response.headers
    .getSetCookie()
    .map((line) => line.split(';', 1)[0] ?? '')
    .join('; ');
  secrets.add(token);
  secrets.add(sid);
  secrets.add(binding.split('=')[1] ?? binding);
  return {
    status: response.status,
    acknowledged: { email, name, token, sid, binding },
  };
}

/** `GET /` with the login cookie the page would have written. */
async function firstSignIn(
  origin: string,
  { token, sid, binding }: Acknowledged,
) {
  const login = encodeURIComponent(
    JSON.stringify({ VigilToken: token, VigilSID: sid }),
  );
  const response = await fetch(`${origin}/`, {
    headers: { cookie: `VigilLogin=${login}; ${binding}` },
  });
  const html = await response.text();
  const session = /Vigil_SESSION=([^;]+)/.exec(
    response.headers.getSetCookie().join('\n'),
  )?.[1];
  if (session) secrets.add(session);
  return {
    status: response.status,
    email: /data-testid="account-email">([^<]*)</.exec(html)?.[1],
    refused: html.includes('data-testid="signin-refused"'),
  };
}

describe('a restart', () => {
  it('keeps the account, refuses its address in any case, and the unused token still signs in once', async () => {
    let service = await start();
    const { acknowledged } = await signUp(service.origin, {
      email: `ada.${process.pid}@example.com`,
    });
    if (!acknowledged) throw new Error('the sign-up was not acknowledged');
    expect(await stop(service, 'SIGTERM')).toEqual({ code: 0, signal: null });

    service = await start();
    const again = await signUp(service.origin, {
      email: `ADA.${process.pid}@Example.com`,
    });
    expect(again.status).toBe(409);
    expect(await firstSignIn(service.origin, acknowledged)).toMatchObject({
      status: 200,
      email: acknowledged.email,
    });
    expect(await firstSignIn(service.origin, acknowledged)).toMatchObject({
      refused: true,
    });
    await stop(service, 'SIGTERM');
  });
});

describe('SIGTERM', () => {
  it('finishes the sign-up in flight, then closes the database and exits 0', async () => {
    let service = await start();
    const body = validSignUp();
    secrets.add(body.get('email') ?? '');
    const bytes = Buffer.from(body.toString());
    const { port } = new URL(service.origin);
    // Half the body now, the rest after the signal: the request is in
    // flight when SIGTERM arrives.
    const answer = new Promise<{
      status: number;
      text: string;
      binding: string;
    }>((resolveAnswer, reject) => {
      const outgoing = request(
        {
          host: 'localhost',
          port,
          method: 'POST',
          path: SIGN_UP_PATH,
          headers: {
            'content-type': FORM,
            'content-length': bytes.length,
          },
        },
        (response) => {
          let text = '';
          response.on('data', (chunk: Buffer) => (text += chunk.toString()));
          response.on('end', () =>
            resolveAnswer({
              status: response.statusCode ?? 0,
              text,
              binding: (response.headers['set-cookie'] ?? [])
                .map((line) => line.split(';', 1)[0] ?? '')
                .join('; '),
            }),
          );
        },
      );
      outgoing.on('error', reject);
      outgoing.write(bytes.subarray(0, 10));
      setTimeout(() => {
        process.kill(service.pid, 'SIGTERM');
        setTimeout(() => outgoing.end(bytes.subarray(10)), 300);
      }, 200);
    });
    const { status, text, binding } = await answer;
    expect(status).toBe(200);
    const auth = (
      JSON.parse(text) as {
        data: { one_time_auth: { token: string; sid: string } };
      }
    ).data.one_time_auth;
    secrets.add(auth.token);
    secrets.add(auth.sid);
    const exit = await service.exited;
    logs.push(...service.output);
    running = undefined;
    expect(exit).toEqual({ code: 0, signal: null });
    expect(service.output.join('\n')).toContain('finishing requests in flight');

    // What it acknowledged while stopping is there.
    service = await start();
    expect(
      await firstSignIn(service.origin, {
        ...auth,
        binding,
        email: body.get('email') ?? '',
        name: body.get('name') ?? '',
      }),
    ).toMatchObject({ status: 200, email: body.get('email') });
    await stop(service, 'SIGTERM');
  });
});

describe('SIGKILL in the middle of 16 clients’ sign-ups', () => {
  it('loses no sign-up that was answered success', async () => {
    let service = await start();
    const acknowledged: Acknowledged[] = [];
    let killed = false;
    const client = async () => {
      while (!killed) {
        try {
          const result = await signUp(service.origin);
          if (result.acknowledged) acknowledged.push(result.acknowledged);
        } catch {
          // The connection died with the server: not acknowledged.
        }
      }
    };
    const clients = Array.from({ length: 16 }, client);
    await new Promise<void>((resolveEnough) => {
      const check = setInterval(() => {
        if (acknowledged.length >= 200) {
          clearInterval(check);
          resolveEnough();
        }
      }, 5);
    });
    process.kill(service.pid, 'SIGKILL');
    const exit = await service.exited;
    killed = true;
    await Promise.all(clients);
    logs.push(...service.output);
    running = undefined;
    expect(exit.signal).toBe('SIGKILL');
    expect(acknowledged.length).toBeGreaterThanOrEqual(200);

    service = await start();
    const missing: string[] = [];
    for (const sign of acknowledged) {
      const result = await firstSignIn(service.origin, sign);
      if (result.email !== sign.email) missing.push(sign.email);
    }
    expect(missing, `${missing.length} of ${acknowledged.length} lost`).toEqual(
      [],
    );
    await stop(service, 'SIGTERM');
  });
});

describe('a configuration that would run unsafely', () => {
  it('stops the service, naming both variables: a real captcha key without its secret', async () => {
    const service = await startService(
      {
        ...databaseEnv(settings),
        RECAPTCHA_SITE_KEY: '6Lc_real_site_key_of_the_product_000000000',
      },
      { waitReady: false },
    );
    const exit = await service.exited;
    logs.push(...service.output);
    expect(exit.code).toBe(1);
    expect(service.output.join('\n')).toMatch(
      /did not start: RECAPTCHA_SITE_KEY is set to a real key but RECAPTCHA_SECRET is not/,
    );
  });

  it('runs with Google’s test key, saying at start that tokens are not verified, and which Node.js it runs on', async () => {
    const service = await start();
    await stop(service, 'SIGTERM');
    expect(service.output).toContainEqual(
      expect.stringMatching(
        /^Warning: RECAPTCHA_SITE_KEY is Google's test key: captcha tokens are not verified/,
      ),
    );
    // The service runs on the runtime of this test (process.execPath).
    expect(service.output).toContainEqual(
      `Runtime: Node.js ${process.version}`,
    );
    expect(service.output.join('\n')).not.toMatch(/Warning: Node\.js/);
  });
});

describe('the logs', () => {
  it('carry no e-mail address, name, token, sid or session', async () => {
    // Requests whose parts an operator must not read in a log: a prefilled
    // address, a refused e-mail, a sign-out.
    const service = await start();
    const email = `grace.${process.pid}@example.com`;
    secrets.add(email);
    await fetch(
      `${service.origin}/signup?name=Grace%20Hopper&email=${encodeURIComponent(email)}`,
    );
    await signUp(service.origin, { email, name: 'Grace Hopper' });
    await signUp(service.origin, { email, name: 'Grace Hopper' });
    await signUp(service.origin, { email: 'not-an-address' });
    await fetch(`${service.origin}/sign-out`, {
      method: 'POST',
      headers: { 'content-type': FORM, cookie: 'Vigil_SESSION=abcdefghijk' },
      body: '',
    });
    await stop(service, 'SIGTERM');
    secrets.add('Grace Hopper');
    secrets.add('Ada Lovelace');
    secrets.add('abcdefghijk');

    // Its own requests were logged, each once, when answered (by method
    // and path), with the client's network and not its address…
    const signupLines = service.output.filter((line) =>
      line.includes('"path":"/signup"'),
    );
    expect(signupLines).toHaveLength(1);
    expect(JSON.parse(signupLines[0] ?? '{}')).toMatchObject({
      req: { method: 'GET', path: '/signup' },
      statusCode: expect.any(Number),
    });
    // The test's client is this host: 127.0.0.1, or ::1 where localhost
    // resolves to it.
    expect(['127.0.0.0/24', '::/48']).toContain(
      (
        JSON.parse(signupLines[0] ?? '{}') as {
          req: { remoteNetwork?: string };
        }
      ).req.remoteNetwork,
    );
    const requestLines = service.output.filter((line) =>
      line.includes('"req"'),
    );
    expect(requestLines.join('\n')).not.toMatch(
      /127\.0\.0\.1|::1"|incoming request|request completed/,
    );
    // …and nothing personal, there or in any service this file ran.
    const leaks = logs.filter((line) =>
      [...secrets].some((secret) => secret !== '' && line.includes(secret)),
    );
    expect(leaks).toEqual([]);
  });
});
