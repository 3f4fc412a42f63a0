/**
 * A strict reader of the sign-up request body (docs/contract.md "HTTP":
 * `application/x-www-form-urlencoded`). It splits and decodes like the
 * WHATWG URL standard's application/x-www-form-urlencoded parser (`&`, the
 * first `=`, `+` for a space, percent-escapes as UTF-8), but refuses what
 * that parser silently repairs with U+FFFD: bytes that are not UTF-8, and
 * percent-escapes that are malformed or decode to something that is not
 * UTF-8. A repaired body would create an account with a garbled name.
 */
import type { FormBody } from './signUpRules';

/** Why a body or its content type cannot be read. */
export class FormBodyError extends Error {
  constructor(
    /** `media type`: the content type is not form-encoded UTF-8; `encoding`: the body is not. */
    readonly problem: 'media type' | 'encoding',
    message: string,
  ) {
    super(message);
    this.name = 'FormBodyError';
  }
}

const FORM_MEDIA_TYPE = 'application/x-www-form-urlencoded';

// RFC 9110 §8.3.1: media-type = type "/" subtype parameters, with
// parameters `; name=value`, the value a token or a quoted-string; names and
// the charset value are case-insensitive.
const PARAMETER =
  /^\s*([!#$%&'*+.^_`|~\w-]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^;\s"]*)\s*$/;

/**
 * Checks a Content-Type header: the form media type, with no charset or
 * `charset=utf-8` (WHATWG URL: the form encoding is always UTF-8, and a
 * body declared in another charset would be misread).
 *
 * @param header the request's Content-Type
 * @throws FormBodyError (`media type`) for anything else, or a malformed one
 */
export function checkFormContentType(header: string | undefined): void {
  if (header === undefined) {
    throw new FormBodyError('media type', 'no content type');
  }
  // A split string has a first part.
  const [essence, ...parameters] = header.split(';') as [string, ...string[]];
  if (essence.trim().toLowerCase() !== FORM_MEDIA_TYPE) {
    throw new FormBodyError('media type', `not ${FORM_MEDIA_TYPE}`);
  }
  for (const parameter of parameters) {
    if (parameter.trim() === '') continue;
    const match = PARAMETER.exec(parameter);
    if (!match) {
      throw new FormBodyError('media type', 'malformed content type');
    }
    // Stryker disable next-line StringLiteral: both groups take part in every match; the defaults only satisfy the type
    const [, name = '', rawValue = ''] = match;
    // Stryker disable next-line MethodExpression: a value is a quoted-string, which starts and ends with '"', or a token, which has none
    const value = rawValue.startsWith('"')
      ? rawValue.slice(1, -1).replace(/\\(.)/g, '$1')
      : rawValue;
    if (name.toLowerCase() === 'charset' && value.toLowerCase() !== 'utf-8') {
      throw new FormBodyError('media type', `charset ${value} is not utf-8`);
    }
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function decodeComponent(text: string): string {
  try {
    // decodeURIComponent throws a URIError for a malformed escape and for
    // escapes that are not UTF-8 (ECMA-262 "Decode"); nothing is replaced.
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    throw new FormBodyError('encoding', 'malformed percent-encoding');
  }
}

/**
 * Parses a form body into the fields the API reads; a key sent more than
 * once becomes an array of its values, in order. The record has no
 * prototype, so keys like `__proto__` or `constructor` are plain fields.
 *
 * @param bytes the raw body
 * @returns the fields
 * @throws FormBodyError (`encoding`) when the bytes are not UTF-8 or a
 *   percent-escape is malformed or not UTF-8
 */
export function parseFormBody(bytes: Uint8Array): FormBody {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new FormBodyError('encoding', 'body is not UTF-8');
  }
  const fields: FormBody = Object.create(null) as FormBody;
  for (const pair of text.split('&')) {
    if (pair === '') continue;
    const equals = pair.indexOf('=');
    const name = decodeComponent(equals < 0 ? pair : pair.slice(0, equals));
    const value = equals < 0 ? '' : decodeComponent(pair.slice(equals + 1));
    const seen = fields[name];
    if (seen === undefined) fields[name] = value;
    else if (Array.isArray(seen)) seen.push(value);
    else fields[name] = [seen, value];
  }
  return fields;
}
