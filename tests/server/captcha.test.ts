/**
 * The captcha's verification (issue 35; ADR-0090): with a secret, each
 * sign-up's token goes to the verifier, here a local stand-in for reCAPTCHA's
 * `siteverify` on loopback (Google's own cannot be reached from tests),
 * answering as Google documents ("Verifying the user's response"). A token
 * passes only with `success: true` for the site's host name; a verifier
 * that cannot say (5xx, no answer, not JSON, a wrong secret) gets the page
 * a 503 in the API's shape, and nothing is created either way.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIGN_UP_PATH } from '../../contract/signUp';
import type { CaptchaVerification } from '../../server/signUp/captcha';
import {
  apiServer,
  expectApiAnswer,
  FORM,
  validSignUp,
} from './support/apiServer';

/** What the stand-in does with the next request. */
type Reply = { status: number; body: string } | 'hang' | 'hang up';

let reply: Reply;
/** The form bodies the stand-in received, in order. */
const received: URLSearchParams[] = [];
let verifier: Server;
let verifyUrl: string;

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolveBody) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => resolveBody(body));
  });
}

beforeAll(async () => {
  verifier = createServer((request, response) => {
    void readBody(request).then((body) => {
      received.push(new URLSearchParams(body));
      if (reply === 'hang') return;
      if (reply === 'hang up') {
        request.socket.destroy();
        return;
      }
      response.writeHead(reply.status, { 'content-type': 'application/json' });
      response.end(reply.body);
    });
  });
  await new Promise<void>((listening) =>
    verifier.listen(0, '127.0.0.1', listening),
  );
  verifyUrl = `http://127.0.0.1:${(verifier.address() as AddressInfo).port}/recaptcha/api/siteverify`;
});

afterAll(async () => {
  verifier.closeAllConnections();
  await new Promise((closed) => verifier.close(closed));
});

/** Google's answer for a token solved on `hostname`. */
const solved = (hostname: string) => ({
  status: 200,
  body: JSON.stringify({
    success: true,
    challenge_ts: '2026-11-27T22:00:00Z',
    hostname,
  }),
});

async function serverVerifying(captcha: Partial<CaptchaVerification> = {}) {
  return apiServer({
    captcha: {
      secret: 'the-secret',
      verifyUrl,
      hostname: 'signup.vigil.example',
      timeoutMs: 500,
      ...captcha,
    },
  });
}

let app: FastifyInstance;
beforeAll(async () => {
  app = await serverVerifying();
});
afterAll(() => app.close());

function signUp(server: FastifyInstance, body: URLSearchParams) {
  return server.inject({
    method: 'POST',
    url: SIGN_UP_PATH,
    headers: { 'content-type': FORM },
    payload: body.toString(),
  });
}

/** Whether the sign-up's address is still free: it signs up once verified. */
async function expectNothingCreated(body: URLSearchParams) {
  reply = solved('signup.vigil.example');
  expect((await signUp(app, body)).statusCode).toBe(200);
}

describe('with RECAPTCHA_SECRET', () => {
  it('sends the secret and the visitor’s token, and signs up a token solved on the site', async () => {
    reply = solved('signup.vigil.example');
    received.length = 0;
    const body = validSignUp({ 'g-recaptcha-response': 'token-from-the-page' });
    const answer = await signUp(app, body);
    expect(answer.statusCode).toBe(200);
    expect(expectApiAnswer(answer)).toMatchObject({ success: true });
    expect(received.map((form) => Object.fromEntries(form))).toEqual([
      { secret: 'the-secret', response: 'token-from-the-page' },
    ]);
  });

  it.each([
    [
      'an unsolved, expired or spent token',
      {
        status: 200,
        body: JSON.stringify({
          success: false,
          'error-codes': ['timeout-or-duplicate'],
        }),
      },
    ],
    ['a token solved on another site', solved('attacker.example')],
    [
      'an answer without a host name',
      { status: 200, body: JSON.stringify({ success: true }) },
    ],
    [
      'an answer that is not plainly true',
      {
        status: 200,
        body: JSON.stringify({
          success: 'true',
          hostname: 'signup.vigil.example',
        }),
      },
    ],
  ])('refuses %s with 400, creating nothing', async (_what, answer) => {
    reply = answer;
    const body = validSignUp();
    const refused = await signUp(app, body);
    expect(refused.statusCode).toBe(400);
    expect(expectApiAnswer(refused)).toEqual({
      success: false,
      code: 'CSAPI_CAPTCHA_INVALID',
      info: 'g-recaptcha-response',
    });
    await expectNothingCreated(body);
  });

  it.each<[string, Reply]>([
    ['answers 503', { status: 503, body: 'Service Unavailable' }],
    ['answers 500', { status: 500, body: '{}' }],
    ['answers what is not JSON', { status: 200, body: '<html>' }],
    ['answers JSON that is not an object', { status: 200, body: 'null' }],
    ['does not answer in time', 'hang'],
    ['hangs up', 'hang up'],
    [
      'says the secret is wrong',
      {
        status: 200,
        body: JSON.stringify({
          success: false,
          'error-codes': ['invalid-input-secret'],
        }),
      },
    ],
  ])(
    'answers 503 with a general failure when the verifier %s, creating nothing',
    async (_what, answer) => {
      reply = answer;
      const body = validSignUp();
      const failed = await signUp(app, body);
      expect(failed.statusCode).toBe(503);
      expect(failed.json()).toEqual({
        success: false,
        code: 'CSAPI_SERVICE_UNAVAILABLE',
        info: 'captcha',
      });
      await expectNothingCreated(body);
    },
  );

  it('answers 503 when nothing listens where the verifier should be', async () => {
    const closed = createServer();
    await new Promise<void>((listening) =>
      closed.listen(0, '127.0.0.1', listening),
    );
    const port = (closed.address() as AddressInfo).port;
    await new Promise((done) => closed.close(done));
    const unreachable = await serverVerifying({
      verifyUrl: `http://127.0.0.1:${port}/siteverify`,
    });
    try {
      const failed = await signUp(unreachable, validSignUp());
      expect(failed.statusCode).toBe(503);
      expect(failed.json()).toMatchObject({
        code: 'CSAPI_SERVICE_UNAVAILABLE',
      });
    } finally {
      await unreachable.close();
    }
  });

  it('with Google’s test key checks success only: its answers name testkey.google.com', async () => {
    const testKey = await serverVerifying({ hostname: undefined });
    try {
      reply = solved('testkey.google.com');
      expect((await signUp(testKey, validSignUp())).statusCode).toBe(200);
    } finally {
      await testKey.close();
    }
  });
});
