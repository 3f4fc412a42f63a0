/**
 * 10,000 generated request bodies against the local API through Fastify's
 * `inject`, with a fixed fast-check seed so a failure replays: form bodies
 * built from valid sign-ups with fields dropped, repeated, replaced or made
 * huge, hand-made form encoding with broken escapes, JSON, random bytes,
 * bodies over the limit, under content types right, wrong and made up.
 * Every answer must keep docs/contract.md "HTTP" (never a 5xx, always JSON in
 * the API's shape); a success must come from a body a browser could have
 * sent (form-encoded UTF-8); and the server must still sign someone up
 * afterwards.
 */
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SIGN_UP_PATH } from '../../contract/signUp';
import {
  apiServer,
  contractProblem,
  expectApiAnswer,
  FORM,
  validSignUp,
} from './support/apiServer';

const RUNS = 10_000;
const SEED = 20_251_122;
const FIELDS = [
  'name',
  'email',
  'g-recaptcha-response',
  'newsletter',
  'url',
  'utm_campaign',
] as const;

/** One generated request: the body's bytes and its Content-Type, if any. */
interface Attempt {
  kind: string;
  contentType: string | undefined;
  body: Buffer;
}

const printable = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
  maxLength: 60,
});

/** Right, wrong, odd and made-up content types. */
const contentType: fc.Arbitrary<string | undefined> = fc.oneof(
  fc.constantFrom(
    FORM,
    `${FORM};charset=UTF-8`,
    `${FORM}; charset="utf-8"`,
    FORM.toUpperCase(),
    `${FORM}; charset=iso-8859-1`,
    `${FORM}; charset=utf-16le`,
    `${FORM};;`,
    `${FORM}; boundary`,
    'application/json',
    'text/plain',
    'text/html; charset=utf-8',
    'multipart/form-data; boundary=x',
    'application/octet-stream',
    'application/x-www-form-urlencoded-but-not',
    '*/*',
    'form',
    '',
  ),
  fc.constant(undefined),
  printable,
);

/** Values a field may carry: plausible, Unicode, any code unit, huge. */
const value = fc.oneof(
  fc.constantFrom(
    'Ada Lovelace',
    'ada@example.com',
    '1',
    '0',
    'https://example.com',
    'token',
    '',
    ' ',
    'http://localhost',
    '<b>x</b>',
    'www.spam.com',
  ),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.integer({ min: 1, max: 20_000 }).map((n) => 'x'.repeat(n)),
);

/** A valid sign-up, mutated: fields replaced, dropped, repeated, added. */
const mutatedForm: fc.Arbitrary<string> = fc
  .record({
    email: fc.nat().map((n) => `fuzz.${n}@example.com`),
    replace: fc.dictionary(fc.constantFrom(...FIELDS), value, {
      maxKeys: 3,
    }),
    drop: fc.subarray([...FIELDS], { maxLength: 2 }),
    extra: fc.array(
      fc.tuple(
        fc.oneof(
          fc.constantFrom(...FIELDS, '__proto__', 'constructor', ''),
          fc.string({ unit: 'grapheme', maxLength: 10 }),
        ),
        value,
      ),
      { maxLength: 3 },
    ),
  })
  .map(({ email, replace, drop, extra }) => {
    const body = validSignUp({ email, ...replace });
    for (const field of drop) body.delete(field);
    for (const [key, v] of extra) body.append(key, v);
    return body.toString();
  });

/** Form encoding written by hand: broken escapes, stray separators. */
const handMadeForm: fc.Arbitrary<string> = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        'name=',
        'email=',
        'newsletter=1',
        'g-recaptcha-response=t',
        '&',
        '=',
        '+',
        '%',
        '%2',
        '%zz',
        '%FF',
        '%C0%80',
        '%ED%A0%80',
        '%E2%82',
        '%00',
        '%26',
        '%3D',
        '%F0%9F%98%80',
      ),
      fc.string({ unit: 'binary-ascii', maxLength: 12 }),
    ),
    { maxLength: 30 },
  )
  .map((parts) => parts.join(''));

const attempt: fc.Arbitrary<Attempt> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('mutated form'),
      contentType: fc.oneof(
        { weight: 3, arbitrary: fc.constant(FORM) },
        { weight: 1, arbitrary: contentType },
      ),
      body: mutatedForm.map((text) => Buffer.from(text)),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('hand-made form'),
      contentType: fc.oneof(
        { weight: 3, arbitrary: fc.constant(FORM) },
        { weight: 1, arbitrary: contentType },
      ),
      body: handMadeForm.map((text) => Buffer.from(text)),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('JSON'),
      contentType: fc.oneof(fc.constant('application/json'), contentType),
      body: fc
        .oneof(
          fc.jsonValue({ maxDepth: 3 }),
          fc.dictionary(fc.constantFrom(...FIELDS), fc.jsonValue()),
        )
        .map((json) => Buffer.from(JSON.stringify(json) ?? 'null')),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('random bytes'),
      contentType,
      body: fc
        .uint8Array({ maxLength: 2_048 })
        .map((bytes) => Buffer.from(bytes)),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('over the limit'),
      contentType,
      body: fc
        .integer({ min: 16 * 1024 - 64, max: 64 * 1024 })
        .map((n) => Buffer.from(`name=${'a'.repeat(n)}`)),
    }),
  },
);

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Whether a browser could have sent this body: the form media type in
 * UTF-8, bytes that are UTF-8, and every escape of it decoding as UTF-8.
 * Checked independently of server/http/formBody.ts, with the platform's decoders.
 */
function browserCouldSend({ contentType, body }: Attempt): boolean {
  const [essence = '', ...parameters] = (contentType ?? '').split(';');
  if (essence.trim().toLowerCase() !== FORM) return false;
  const charset = parameters
    .map((p) => p.trim().toLowerCase())
    .find((p) => p.startsWith('charset='));
  if (charset && charset.replaceAll('"', '') !== 'charset=utf-8') return false;
  try {
    const text = utf8.decode(body);
    for (const part of text.split(/[&=]/)) {
      decodeURIComponent(part.replaceAll('+', ' '));
    }
  } catch {
    return false;
  }
  return true;
}

let app: FastifyInstance;

beforeAll(async () => {
  app = await apiServer();
});

afterAll(() => app.close());

it(`${RUNS} generated bodies: no 5xx, always the API's shape, still answering`, async () => {
  const byStatus = new Map<number, number>();
  const byKind = new Map<string, number>();
  let serverErrors = 0;
  let runs = 0;

  await fc.assert(
    fc.asyncProperty(attempt, async (generated) => {
      const response = await app.inject({
        method: 'POST',
        url: SIGN_UP_PATH,
        headers:
          generated.contentType === undefined
            ? {}
            : { 'content-type': generated.contentType },
        payload: generated.body,
      });
      runs += 1;
      byStatus.set(
        response.statusCode,
        (byStatus.get(response.statusCode) ?? 0) + 1,
      );
      byKind.set(generated.kind, (byKind.get(generated.kind) ?? 0) + 1);
      if (response.statusCode >= 500) serverErrors += 1;
      const contentTypeHeader = response.headers['content-type'];
      const problem = contractProblem(
        response.statusCode,
        typeof contentTypeHeader === 'string' ? contentTypeHeader : undefined,
        response.body,
      );
      if (problem) throw new Error(`${problem}: ${response.body}`);
      if (response.statusCode === 200 && !browserCouldSend(generated)) {
        throw new Error('accepted a body no browser sends');
      }
    }),
    { seed: SEED, numRuns: RUNS },
  );

  // The server still signs people up, and still serves the page.
  const after = await app.inject({
    method: 'POST',
    url: SIGN_UP_PATH,
    headers: { 'content-type': FORM },
    payload: validSignUp().toString(),
  });
  expect(expectApiAnswer(after).success).toBe(true);
  expect((await app.inject({ url: '/signup' })).statusCode).toBe(200);

  const counts = (map: Map<string | number, number>) =>
    [...map]
      .sort(([a], [b]) => String(a).localeCompare(String(b)))
      .map(([key, n]) => `${key}: ${n}`)
      .join(', ');
  console.log(
    `api abuse: ${runs} generated bodies, ${serverErrors} server errors` +
      ` (seed ${SEED}); by status ${counts(byStatus)}; by kind ${counts(byKind)}`,
  );
  expect(runs).toBe(RUNS);
  expect(serverErrors).toBe(0);
  // The generators reach both sides of the API.
  expect(byStatus.get(200)).toBeGreaterThan(100);
  expect(byStatus.get(400)).toBeGreaterThan(100);
  expect(byStatus.get(413)).toBeGreaterThan(0);
  expect(byStatus.get(415)).toBeGreaterThan(100);
  // A limit for a hang, not a timing: 10,000 requests take about 30 s on
  // an idle machine, and over 180 s on a loaded one.
}, 600_000);
