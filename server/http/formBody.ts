/**
 * The APIs' request bodies (docs/contract.md "HTTP": UTF-8
 * `application/x-www-form-urlencoded` only). `@fastify/formbody` reads them
 * (body limit, UTF-8 decoding) and the platform's WHATWG parser,
 * `URLSearchParams`, splits and decodes them. What stays ours is the
 * strictness those two lack (ADR-0078): the media type's
 * charset, and a refusal of what they would silently repair with U+FFFD,
 * because a repaired body would create an account with a garbled name.
 */
import fastifyFormbody from '@fastify/formbody';
import type { FastifyInstance } from 'fastify';

/** A form body as {@link parseFormBody} reads it: repeated keys become arrays. */
export type FormBody = Record<string, string | string[] | undefined>;

/**
 * Whatever a request body parsed into: the APIs check each field's type
 * themselves rather than trust a parser (a JSON body could carry numbers,
 * objects or null).
 */
export type UntrustedBody = Readonly<Record<string, unknown>>;

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
 * body declared in another charset would be misread). Fastify matches the
 * media type alone and skips parameters it cannot read, so the parameters
 * are checked here, strictly.
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

/**
 * The `parser` of `@fastify/formbody`: the WHATWG URL standard's
 * application/x-www-form-urlencoded parser (`URLSearchParams`), once the
 * body is known to need no repair. `Buffer#toString` replaces bytes that
 * are not UTF-8 with U+FFFD, that parser does the same for escapes that do
 * not decode as UTF-8 and keeps a malformed escape as it is; this refuses
 * all three instead.
 *
 * A key sent more than once becomes an array of its values, in order. The
 * record has no prototype, so keys like `__proto__` or `constructor` are
 * plain fields.
 *
 * @param text the body as `@fastify/formbody` hands it over: its bytes
 *   decoded as UTF-8 by `Buffer#toString`, which replaces each ill-formed
 *   sequence with U+FFFD
 * @returns the fields
 * @throws FormBodyError (`encoding`) when the text holds a U+FFFD (bytes
 *   that were not UTF-8, or a U+FFFD sent unescaped, which the standard's
 *   serializer never does: it escapes every code point above U+007E), or
 *   when a percent-escape is malformed or not UTF-8
 */
export function parseFormBody(text: string): FormBody {
  if (text.includes('\uFFFD')) {
    throw new FormBodyError('encoding', 'body is not UTF-8');
  }
  try {
    // decodeURIComponent throws a URIError for a malformed escape and for
    // escapes that are not UTF-8 (ECMA-262 "Decode"). `&`, `=` and `+` are
    // never part of an escape, so the whole body decodes if and only if
    // every name and value does.
    decodeURIComponent(text);
  } catch {
    throw new FormBodyError('encoding', 'malformed percent-encoding');
  }
  const fields: FormBody = Object.create(null) as FormBody;
  // The constructor drops a leading `?` (it also takes a URL's query); after
  // an `&`, an empty sequence the parser skips, the body is read as it is.
  for (const [name, value] of new URLSearchParams(`&${text}`)) {
    const seen = fields[name];
    if (seen === undefined) fields[name] = value;
    else if (Array.isArray(seen)) seen.push(value);
    else fields[name] = [seen, value];
  }
  return fields;
}

/**
 * Makes `api` (a plugin context of its own) read form bodies only, up to
 * `bodyLimit` bytes: a bigger body gets 413 whatever its type, any other
 * content type (or none) 415, a form body that needs repair 400
 * (server/http/errorAnswer.ts). Fastify's JSON and text parsers are removed.
 *
 * @param api the API's context
 * @param bodyLimit the largest body read, in bytes
 */
export async function acceptFormBodies(
  api: FastifyInstance,
  bodyLimit: number,
): Promise<void> {
  api.removeAllContentTypeParsers();
  await api.register(fastifyFormbody, { bodyLimit, parser: parseFormBody });
  // The form's parameters, before its body is read (after the rate limit,
  // which counts every request: ADR-0039).
  api.addHook('preParsing', async (request) => {
    if (request.mediaType === FORM_MEDIA_TYPE) {
      checkFormContentType(request.headers['content-type']);
    }
  });
  // Every other content type, or none: refused once the limit has been
  // checked, so that an oversized body is 413 whatever its type.
  api.addContentTypeParser(
    '*',
    { parseAs: 'buffer', bodyLimit },
    (request, _body, done) => {
      done(
        new FormBodyError(
          'media type',
          request.headers['content-type'] === undefined
            ? 'no content type'
            : `not ${FORM_MEDIA_TYPE}`,
        ),
        undefined,
      );
    },
  );
}
