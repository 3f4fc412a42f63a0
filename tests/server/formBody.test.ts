/**
 * The strict form reader of the API (server/http/formBody.ts): it agrees with the
 * WHATWG parser (`URLSearchParams`) on every well-formed body, and refuses
 * what that parser would repair.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  checkFormContentType,
  FormBodyError,
  parseFormBody,
} from '../../server/http/formBody';

const bytes = (...parts: (string | number[])[]) =>
  Buffer.concat(
    parts.map((part) =>
      typeof part === 'string' ? Buffer.from(part) : Buffer.from(part),
    ),
  );

/** A body as @fastify/formbody hands it to the parser: `Buffer#toString`. */
const read = (body: Buffer) => parseFormBody(body.toString());

function problem(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    if (error instanceof FormBodyError) return error.problem;
    throw error;
  }
  return undefined;
}

describe('parseFormBody', () => {
  it('reads fields, + as a space, escapes as UTF-8, empty and bare names', () => {
    expect({
      ...read(
        bytes('name=Zo%C3%AB+O%27Brien&email=a%40b.co&&flag&empty=&a=b=c'),
      ),
    }).toEqual({
      name: "Zoë O'Brien",
      email: 'a@b.co',
      flag: '',
      empty: '',
      a: 'b=c',
    });
  });

  it('reads raw UTF-8 as well as escaped', () => {
    expect(read(bytes('name=李小龍 😀')).name).toBe('李小龍 😀');
  });

  it('reads an escaped U+FFFD: the text itself is UTF-8', () => {
    expect(read(bytes('name=Ada%EF%BF%BD')).name).toBe('Ada\uFFFD');
  });

  it('keeps every value of a repeated key, in order', () => {
    expect(read(bytes('name=a&x=1&name=b&name=c')).name).toEqual([
      'a',
      'b',
      'c',
    ]);
  });

  it('has no prototype: __proto__ and constructor are plain fields', () => {
    const body = read(bytes('__proto__=x&constructor=y&toString=z'));
    expect(Object.getPrototypeOf(body)).toBeNull();
    expect(Object.keys(body)).toEqual(['__proto__', 'constructor', 'toString']);
    expect(body.constructor).toBe('y');
  });

  it.each([
    ['a lone 0xFF byte', bytes('name=Ada', [0xff])],
    ['a truncated sequence', bytes('name=Ad', [0xe2, 0x82])],
    ['an overlong "/"', bytes('name=', [0xc0, 0xaf])],
    ['a surrogate', bytes('name=', [0xed, 0xa0, 0x80])],
    ['Latin-1 "é"', bytes('name=Ren', [0xe9])],
    ['a lone %', bytes('name=100%')],
    ['a bad escape', bytes('name=%zz')],
    ['an escaped 0xFF', bytes('name=Ada%FF')],
    ['an escaped overlong NUL', bytes('name=%C0%80')],
    ['an escaped surrogate', bytes('name=%ED%A0%80')],
    ['an escaped truncated sequence', bytes('name=%E2%82')],
    ['a bad escape in a key', bytes('na%2me=Ada')],
    ['a U+FFFD sent unescaped', bytes('name=Ada\uFFFD')],
  ])('refuses %s', (_case, body) => {
    expect(problem(() => read(body))).toBe('encoding');
  });

  it('agrees with URLSearchParams on every well-formed body', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.oneof(
              fc.constantFrom('name', 'email', '__proto__', 'a b', '&='),
              fc.string({ unit: 'grapheme' }),
            ),
            fc.string({ unit: 'grapheme' }),
          ),
          { maxLength: 8 },
        ),
        (pairs) => {
          const encoded = new URLSearchParams(pairs).toString();
          const parsed = parseFormBody(encoded);
          const whatwg = new URLSearchParams(encoded);
          for (const key of new Set(whatwg.keys())) {
            const values = whatwg.getAll(key);
            expect(parsed[key]).toEqual(
              values.length === 1 ? values[0] : values,
            );
          }
          expect(Object.keys(parsed).length).toBe(new Set(whatwg.keys()).size);
        },
      ),
      { seed: 20_251_122, numRuns: 2_000 },
    );
  });
});

describe('checkFormContentType', () => {
  it.each([
    'application/x-www-form-urlencoded',
    'application/x-www-form-urlencoded;charset=UTF-8',
    'application/x-www-form-urlencoded; charset=utf-8',
    'Application/X-WWW-Form-URLEncoded; Charset="UTF-8"',
    'application/x-www-form-urlencoded; foo=bar',
    'application/x-www-form-urlencoded;',
  ])('accepts %j', (header) => {
    expect(problem(() => checkFormContentType(header))).toBeUndefined();
  });

  it.each([
    undefined,
    '',
    'application/json',
    'application/json; charset=utf-8',
    'text/plain',
    'multipart/form-data; boundary=x',
    'application/octet-stream',
    'application/x-www-form-urlencoded-extra',
    'x-www-form-urlencoded',
    'application/x-www-form-urlencoded; charset=iso-8859-1',
    'application/x-www-form-urlencoded; charset=utf-16',
    'application/x-www-form-urlencoded; charset',
    'application/x-www-form-urlencoded; =utf-8',
  ])('refuses %j', (header) => {
    expect(problem(() => checkFormContentType(header))).toBe('media type');
  });
});
