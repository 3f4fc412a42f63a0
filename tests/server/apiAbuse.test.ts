/**
 * The local API (`POST /2/account/signup/`) under abuse, case by case,
 * through Fastify's `inject`: oversized bodies, wrong content types, missing
 * and repeated fields, invalid UTF-8, odd keys, the rate limit's answer and
 * key. Every answer must keep docs/contract.md "HTTP"
 * (tests/server/support/apiServer.ts).
 */
import { Readable } from 'node:stream';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorAnswer } from '../../server/http/errorAnswer';
import { SIGN_UP_PATH } from '../../contract/signUp';
import {
  apiServer,
  expectApiAnswer,
  FORM,
  validSignUp,
} from './support/apiServer';

/** 16 KiB: server/app.ts BODY_LIMIT_BYTES. */
const BODY_LIMIT = 16 * 1024;

let app: FastifyInstance;
let cases = 0;

beforeAll(async () => {
  app = await apiServer();
});

afterAll(async () => {
  await app.close();
  console.log(
    `api abuse: ${cases} hand-written requests, every answer in the API's shape`,
  );
});

/** Posts to the API; the answer must keep the contract. */
async function post(
  payload: InjectOptions['payload'],
  headers: Record<string, string> = { 'content-type': FORM },
  extra: Partial<InjectOptions> = {},
) {
  const response = await app.inject({
    method: 'POST',
    url: SIGN_UP_PATH,
    headers,
    ...(payload !== undefined && { payload }),
    ...extra,
  });
  cases += 1;
  return { status: response.statusCode, body: expectApiAnswer(response) };
}

const refused = (code: string, info: string) => ({
  success: false,
  code,
  info,
});

/** A sign-up with this e-mail address succeeds: nothing took it before. */
async function expectEmailFree(email: string) {
  const { status } = await post(validSignUp({ email }).toString());
  expect(status).toBe(200);
}

describe('body size', () => {
  const padded = (length: number) => {
    const body = validSignUp().toString() + '&pad=';
    return body + 'x'.repeat(length - body.length);
  };

  it('accepts a body of exactly 16 KiB', async () => {
    const { status, body } = await post(padded(BODY_LIMIT));
    expect(status).toBe(200);
    expect(body.success).toBe(true);
  });

  it('refuses 16 KiB + 1 byte with 413', async () => {
    await expect(post(padded(BODY_LIMIT + 1))).resolves.toEqual({
      status: 413,
      body: refused('CSAPI_PAYLOAD_TOO_LARGE', 'body'),
    });
  });

  it('refuses 1 MiB with 413', async () => {
    await expect(post('name=' + 'a'.repeat(1024 * 1024))).resolves.toEqual({
      status: 413,
      body: refused('CSAPI_PAYLOAD_TOO_LARGE', 'body'),
    });
  });

  it('refuses a streamed body without Content-Length once it passes 16 KiB', async () => {
    const chunks = Array.from({ length: 40 }, () => 'x'.repeat(1024));
    await expect(
      post(Readable.from(chunks), {
        'content-type': FORM,
        'transfer-encoding': 'chunked',
      }),
    ).resolves.toEqual({
      status: 413,
      body: refused('CSAPI_PAYLOAD_TOO_LARGE', 'body'),
    });
  });

  it('refuses a JSON body over the limit with 413 before reading it', async () => {
    await expect(
      post(JSON.stringify({ name: 'x'.repeat(BODY_LIMIT) }), {
        'content-type': 'application/json',
      }),
    ).resolves.toEqual({
      status: 413,
      body: refused('CSAPI_PAYLOAD_TOO_LARGE', 'body'),
    });
  });
});

describe('content type', () => {
  const valid = () => validSignUp();

  it.each([
    'application/x-www-form-urlencoded',
    'application/x-www-form-urlencoded;charset=UTF-8',
    'APPLICATION/X-WWW-FORM-URLENCODED; charset="utf-8"',
  ])('accepts %j', async (contentType) => {
    const { status } = await post(valid().toString(), {
      'content-type': contentType,
    });
    expect(status).toBe(200);
  });

  it.each([
    ['JSON', 'application/json', JSON.stringify(Object.fromEntries(valid()))],
    ['JSON with a charset', 'application/json; charset=utf-8', '{}'],
    ['text', 'text/plain', valid().toString()],
    [
      'multipart',
      'multipart/form-data; boundary=x',
      '--x\r\nContent-Disposition: form-data; name="name"\r\n\r\nAda\r\n--x--',
    ],
    ['bytes', 'application/octet-stream', valid().toString()],
    [
      'form in Latin-1',
      'application/x-www-form-urlencoded; charset=iso-8859-1',
      valid().toString(),
    ],
    [
      'form with a charset without a value',
      'application/x-www-form-urlencoded; charset',
      valid().toString(),
    ],
    ['a malformed type', 'application/', valid().toString()],
    ['a made-up type', 'vigil/signup', valid().toString()],
  ])('refuses %s with 415', async (_case, contentType, payload) => {
    await expect(
      post(payload, { 'content-type': contentType }),
    ).resolves.toEqual({
      status: 415,
      body: refused('CSAPI_UNSUPPORTED_MEDIA_TYPE', 'content-type'),
    });
  });

  it('refuses a body without a content type with 415', async () => {
    await expect(post(valid().toString(), {})).resolves.toEqual({
      status: 415,
      body: refused('CSAPI_UNSUPPORTED_MEDIA_TYPE', 'content-type'),
    });
  });

  it('refuses JSON whose values are not strings without a server error', async () => {
    for (const value of [5, null, true, {}, [], ['a']]) {
      const { status } = await post(
        JSON.stringify({ ...Object.fromEntries(valid()), url: value }),
        { 'content-type': 'application/json' },
      );
      expect(status).toBe(415);
    }
  });
});

describe('fields', () => {
  it('answers a request with no body at all', async () => {
    await expect(post(undefined, {})).resolves.toEqual({
      status: 400,
      body: refused('CSAPI_INVALID_PARAMETER', 'body'),
    });
  });

  it('answers an empty form', async () => {
    await expect(post('')).resolves.toEqual({
      status: 400,
      body: refused('CSAPI_INVALID_PARAMETER', 'name'),
    });
  });

  it.each([
    ['name', 'CSAPI_INVALID_PARAMETER'],
    ['email', 'CSAPI_INVALID_PARAMETER'],
    ['g-recaptcha-response', 'CSAPI_CAPTCHA_MISSING'],
    ['newsletter', 'CSAPI_INVALID_PARAMETER'],
  ])('refuses a body without %s', async (field, code) => {
    const body = validSignUp();
    body.delete(field);
    await expect(post(body.toString())).resolves.toEqual({
      status: 400,
      body: refused(code, field),
    });
  });

  it.each(['name', 'email', 'g-recaptcha-response', 'newsletter', 'url'])(
    'refuses a repeated %s',
    async (field) => {
      const body = validSignUp({ utm_campaign: 'spring' });
      body.append(field, body.get(field) ?? '');
      await expect(post(body.toString())).resolves.toEqual({
        status: 400,
        body: refused('CSAPI_INVALID_PARAMETER', field),
      });
    },
  );

  // docs/url-and-email-rules.md, "Campaign": a campaign the page's rule would
  // not keep is ignored, so it can never block a sign-up.
  it.each([
    ['repeated', ['spring', 'autumn']],
    ['201 characters long', ['c'.repeat(201)]],
    ['holding a control character', ['spring\u0007sale']],
  ])('accepts a sign-up with a utm_campaign %s', async (_case, values) => {
    const body = validSignUp();
    for (const value of values) body.append('utm_campaign', value);
    const { status } = await post(body.toString());
    expect(status).toBe(200);
  });

  it('ignores unknown fields and keys named like Object.prototype', async () => {
    const body = validSignUp();
    for (const key of ['__proto__', 'constructor', 'toString', 'x', '']) {
      body.append(key, 'surprise');
    }
    const { status } = await post(body.toString());
    expect(status).toBe(200);
  });

  it.each([
    ['a NUL', 'Ada\u0000Lovelace'],
    ['a newline', 'Ada\nLovelace'],
    ['an escape', 'Ada\u001b[31m'],
    ['a right-to-left override', 'Ada\u202eecalevoL'],
    ['a C1 control', 'Ada\u0085'],
  ])('refuses a name with %s', async (_case, name) => {
    await expect(post(validSignUp({ name }).toString())).resolves.toEqual({
      status: 400,
      body: refused('CSAPI_INVALID_PARAMETER', 'name'),
    });
  });

  it('refuses a second account for the same e-mail in other case', async () => {
    const email = `case.${process.pid}@example.com`;
    await expectEmailFree(email);
    await expect(
      post(validSignUp({ email: email.toUpperCase() }).toString()),
    ).resolves.toEqual({
      status: 409,
      body: refused('CSAPI_EMAIL_IN_USE', 'email'),
    });
  });
});

describe('invalid UTF-8 creates no account', () => {
  let n = 0;
  /** A valid sign-up but for the name's bytes, with a fresh e-mail. */
  const withName = (name: Buffer | string) => {
    n += 1;
    const email = `utf8.${process.pid}.${n}@example.com`;
    const rest = new URLSearchParams({
      email,
      'g-recaptcha-response': 'token',
      newsletter: '0',
    });
    return {
      email,
      payload: Buffer.concat([
        Buffer.from('name='),
        Buffer.from(name),
        Buffer.from(`&${rest.toString()}`),
      ]),
    };
  };

  it.each([
    ['raw 0xFF', Buffer.from([0x41, 0x64, 0x61, 0xff])],
    ['raw Latin-1', Buffer.from([0x52, 0x65, 0x6e, 0xe9])],
    ['raw overlong', Buffer.from([0x41, 0xc0, 0xaf])],
    ['raw surrogate', Buffer.from([0x41, 0xed, 0xa0, 0x80])],
    ['escaped 0xFF', 'Ada%FF'],
    ['escaped Latin-1', 'Ren%E9'],
    ['escaped surrogate', 'A%ED%A0%80'],
    ['malformed escape', 'Ada%G1'],
    // Valid UTF-8, but the mark of a repair; no serializer sends it raw.
    ['raw U+FFFD', 'Ada\uFFFD'],
  ])('%s: 400, and the e-mail stays free', async (_case, name) => {
    const { email, payload } = withName(name);
    await expect(post(payload)).resolves.toEqual({
      status: 400,
      body: refused('CSAPI_INVALID_PARAMETER', 'body'),
    });
    await expectEmailFree(email);
  });

  it('accepts a name in valid UTF-8, raw or escaped', async () => {
    expect((await post(withName('Zoë 李').payload)).status).toBe(200);
    expect((await post(withName('Zo%C3%AB+%E6%9D%8E').payload)).status).toBe(
      200,
    );
  });
});

describe('other methods and paths', () => {
  it.each([
    ['GET', SIGN_UP_PATH],
    ['PUT', SIGN_UP_PATH],
    ['PATCH', SIGN_UP_PATH],
    ['DELETE', SIGN_UP_PATH],
    ['POST', '/2/account/signup'],
    ['POST', '/2/account/signup/extra'],
    ['POST', '/'],
  ] as const)('%s %s: 404 in the API shape', async (method, url) => {
    const response = await app.inject({
      method,
      url,
      headers: { 'content-type': FORM },
      payload: validSignUp().toString(),
    });
    cases += 1;
    expect(response.statusCode).toBe(404);
    expect(expectApiAnswer(response)).toEqual(
      refused('CSAPI_NOT_FOUND', 'path'),
    );
  });
});

describe('the rate limit', () => {
  let limited: FastifyInstance;
  beforeAll(async () => {
    limited = await apiServer({ rateLimit: 2 });
  });
  afterAll(() => limited.close());

  const signUp = (
    remoteAddress: string,
    headers: Record<string, string> = {},
  ) =>
    limited
      .inject({
        method: 'POST',
        url: SIGN_UP_PATH,
        headers: { 'content-type': FORM, ...headers },
        payload: validSignUp().toString(),
        remoteAddress,
      })
      .then((response) => {
        cases += 1;
        expectApiAnswer(response);
        return response;
      });

  it('answers 429 in the API shape, with no statusCode in the body, and Retry-After', async () => {
    await signUp('10.0.0.1');
    await signUp('10.0.0.1');
    const response = await signUp('10.0.0.1');
    expect(response.statusCode).toBe(429);
    expect(expectApiAnswer(response)).toEqual(
      refused('CSAPI_API_RATE_LIMIT_REACHED', 'rate limit'),
    );
    expect(Number(response.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('keys on the connection’s address: X-Forwarded-For does not buy more', async () => {
    const statuses = [];
    for (let i = 0; i < 4; i += 1) {
      const response = await signUp('10.0.0.2', {
        'x-forwarded-for': `198.51.100.${i}`,
        'x-real-ip': `198.51.100.${i}`,
      });
      statuses.push(response.statusCode);
    }
    expect(statuses).toEqual([200, 200, 429, 429]);
  });

  it('counts refused and malformed requests too (ADR-0039: every request counts)', async () => {
    const junk = await limited.inject({
      method: 'POST',
      url: SIGN_UP_PATH,
      headers: { 'content-type': 'application/json' },
      payload: '{}',
      remoteAddress: '10.0.0.3',
    });
    expect(junk.statusCode).toBe(415);
    expect((await signUp('10.0.0.3')).statusCode).toBe(200);
    expect((await signUp('10.0.0.3')).statusCode).toBe(429);
  });

  it('leaves other clients alone', async () => {
    expect((await signUp('10.0.0.4')).statusCode).toBe(200);
  });
});

describe('errorAnswer', () => {
  it.each([
    [{ statusCode: 413 }, 413, 'CSAPI_PAYLOAD_TOO_LARGE'],
    [{ statusCode: 415 }, 415, 'CSAPI_UNSUPPORTED_MEDIA_TYPE'],
    [{ statusCode: 429 }, 429, 'CSAPI_API_RATE_LIMIT_REACHED'],
    [{ statusCode: 400 }, 400, 'CSAPI_BAD_REQUEST'],
    [{ statusCode: 404 }, 404, 'CSAPI_BAD_REQUEST'],
    [{ statusCode: 502 }, 502, 'CSAPI_INTERNAL_ERROR'],
    [{}, 500, 'CSAPI_INTERNAL_ERROR'],
    [{ statusCode: 200 }, 500, 'CSAPI_INTERNAL_ERROR'],
    [{ statusCode: 999 }, 500, 'CSAPI_INTERNAL_ERROR'],
  ])('%j → %i %s', (error, status, code) => {
    const answer = errorAnswer(error);
    expect(answer.status).toBe(status);
    expect(answer.answer).toEqual(expect.objectContaining({ code }));
  });
});
