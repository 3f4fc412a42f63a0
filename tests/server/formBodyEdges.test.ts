/**
 * Edges of the API's form reader (server/formBody.ts): the optional
 * whitespace RFC 9110 §5.6.6 allows around a media type's parameters, the
 * quoted-pair of a quoted charset, an unterminated quote, and errors that
 * say what they refused.
 */
import { describe, expect, it } from 'vitest';
import {
  checkFormContentType,
  FormBodyError,
  parseFormBody,
} from '../../server/formBody';

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
      () => parseFormBody(Buffer.from('name=%zz')),
      'encoding',
      /malformed percent-encoding/,
    ],
    [
      'bytes that are not UTF-8',
      () => parseFormBody(Buffer.from([0x6e, 0x3d, 0xff])),
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
