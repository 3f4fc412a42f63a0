/**
 * Edges of the API's form reader (server/http/formBody.ts): the optional
 * whitespace RFC 9110 §5.6.6 allows around a media type's parameters, the
 * quoted-pair of a quoted charset, an unterminated quote, errors that say
 * what they refused, and those errors as a context that accepts form
 * bodies (@fastify/formbody and our strictness) raises them.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  acceptFormBodies,
  checkFormContentType,
  FormBodyError,
  parseFormBody,
} from '../../server/http/formBody';

const FORM = 'application/x-www-form-urlencoded';

function refusal(run: () => unknown): FormBodyError {
  try {
    run();
  } catch (error) {
    if (error instanceof FormBodyError) return error;
    throw error;
  }
  throw new Error('nothing was refused');
}

describe('checkFormContentType: RFC 9110 §8.3.1 and §5.6.6', () => {
  it.each([
    'application/x-www-form-urlencoded ; charset=utf-8',
    'application/x-www-form-urlencoded\t;charset=utf-8',
    'application/x-www-form-urlencoded; ',
    'application/x-www-form-urlencoded;;charset=utf-8',
    'application/x-www-form-urlencoded; charset="utf\\-8"',
  ])('accepts %j', (header) => {
    expect(() => checkFormContentType(header)).not.toThrow();
  });

  it.each([
    'application/x-www-form-urlencoded; charset="utf-8x',
    'application/x-www-form-urlencoded; charset=utf-8"',
    'application/x-www-form-urlencoded; charset="utf\\-16"',
  ])('refuses %j', (header) => {
    expect(refusal(() => checkFormContentType(header)).problem).toBe(
      'media type',
    );
  });
});

describe('FormBodyError: says what it refused', () => {
  it.each<[string, () => unknown, 'media type' | 'encoding', RegExp]>([
    [
      'no content type',
      () => checkFormContentType(undefined),
      'media type',
      /no content type/,
    ],
    [
      'another media type',
      () => checkFormContentType('application/json'),
      'media type',
      /not application\/x-www-form-urlencoded/,
    ],
    [
      'a malformed parameter',
      () => checkFormContentType('application/x-www-form-urlencoded; =x'),
      'media type',
      /malformed content type/,
    ],
    [
      'another charset',
      () =>
        checkFormContentType(
          'application/x-www-form-urlencoded; charset=iso-8859-1',
        ),
      'media type',
      /charset iso-8859-1 is not utf-8/,
    ],
    [
      'a malformed escape',
      () => parseFormBody('name=%zz'),
      'encoding',
      /malformed percent-encoding/,
    ],
    [
      'bytes that are not UTF-8',
      () => parseFormBody(Buffer.from([0x6e, 0x3d, 0xff]).toString()),
      'encoding',
      /body is not UTF-8/,
    ],
  ])('%s', (_case, run, problem, message) => {
    const error = refusal(run);
    expect(error.problem).toBe(problem);
    expect(String(error)).toMatch(/^FormBodyError: /);
    expect(error.message).toMatch(message);
  });
});

describe('acceptFormBodies: what reaches the error handler', () => {
  let app: FastifyInstance;
  let raised: unknown;

  beforeAll(async () => {
    app = Fastify();
    await app.register(async (api) => {
      await acceptFormBodies(api, 64);
      api.setErrorHandler((error, _request, reply) => {
        raised = error;
        return reply.code(418).send();
      });
      api.post('/', async (request) => ({ ...(request.body as object) }));
    });
  });

  afterAll(() => app.close());

  const send = (headers: Record<string, string>, payload: string | Buffer) => {
    raised = undefined;
    return app.inject({ method: 'POST', url: '/', headers, payload });
  };

  it('hands a form to the route, read by the library', async () => {
    const response = await send({ 'content-type': FORM }, 'a=1&a=%C3%AB&b');
    expect(response.json()).toEqual({ a: ['1', 'ë'], b: '' });
    expect(raised).toBeUndefined();
  });

  it.each<[string, Record<string, string>, string | Buffer, string, RegExp]>([
    [
      'another media type',
      { 'content-type': 'application/json' },
      '{}',
      'media type',
      /^not application\/x-www-form-urlencoded$/,
    ],
    ['no content type', {}, 'a=1', 'media type', /^no content type$/],
    [
      'another charset',
      { 'content-type': `${FORM}; charset=iso-8859-1` },
      'a=1',
      'media type',
      /^charset iso-8859-1 is not utf-8$/,
    ],
    [
      'bytes that are not UTF-8',
      { 'content-type': FORM },
      Buffer.from([0x61, 0x3d, 0xff]),
      'encoding',
      /^body is not UTF-8$/,
    ],
    [
      'a malformed escape',
      { 'content-type': FORM },
      'a=%zz',
      'encoding',
      /^malformed percent-encoding$/,
    ],
  ])(
    '%s: a FormBodyError',
    async (_case, headers, payload, problem, message) => {
      await send(headers, payload);
      expect(raised).toBeInstanceOf(FormBodyError);
      expect((raised as FormBodyError).problem).toBe(problem);
      expect((raised as FormBodyError).message).toMatch(message);
    },
  );

  it('checks the limit first, whatever the type', async () => {
    await send({ 'content-type': 'application/json' }, 'x'.repeat(65));
    expect(raised).toMatchObject({ statusCode: 413 });
    await send({ 'content-type': FORM }, `a=${'x'.repeat(63)}`);
    expect(raised).toMatchObject({ statusCode: 413 });
  });
});
