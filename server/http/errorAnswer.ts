/**
 * The API's answers to errors raised before or outside its handler (a body
 * the parser refuses, a rate limit, an unknown path, a fault), so the page
 * always meets the API's own shape (docs/contract.md, "HTTP").
 */
import type { FastifyError } from 'fastify';
import { type SignUpAnswer } from '../../contract/signUp';
import { API_CODES, type ApiCode } from '../../contract/apiCodes';
import { CrossOriginRequestError } from './crossOrigin';
import { DatabaseUnavailableError } from '../db/unavailable';
import { FormBodyError } from './formBody';

/**
 * The APIs' failure answer (docs/contract.md "HTTP"): `success: false`,
 * the code, and the field or part it is about.
 */
export function refusal(code: ApiCode, info: string): SignUpAnswer {
  return { success: false, code, info };
}

/**
 * A service the answer depends on could not answer (the captcha's
 * verifier, server/signUp/captcha.ts): 503, naming the part in `info`.
 */
export class PartUnavailableError extends Error {
  /**
   * @param part what could not answer, the answer's `info` (`captcha`)
   */
  constructor(
    readonly part: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'PartUnavailableError';
  }
}

/** An error Fastify, a plugin or a hook raised, as far as the API reads it. */
export type RaisedError =
  | Pick<FastifyError, 'statusCode'>
  | FormBodyError
  | DatabaseUnavailableError
  | CrossOriginRequestError
  | PartUnavailableError;

/**
 * The API's answer to an error raised before or outside the handler, so that
 * the page decides on `code` (docs/contract.md, "HTTP") and never meets a
 * framework's error body.
 *
 * @returns the HTTP status and the answer: 400 `CSAPI_INVALID_PARAMETER`
 *   `body` for a body that is not UTF-8 form encoding, 413
 *   `CSAPI_PAYLOAD_TOO_LARGE`, 415 `CSAPI_UNSUPPORTED_MEDIA_TYPE` for any
 *   other content type, 403 `CSAPI_FORBIDDEN` `origin` for a
 *   state-changing request another site's page sent (server/http/crossOrigin.ts),
 *   429 `CSAPI_API_RATE_LIMIT_REACHED`, 503 `CSAPI_SERVICE_UNAVAILABLE`
 *   (`database` or `captcha`) when the database or the captcha's verifier
 *   cannot answer, other client
 *   errors `CSAPI_BAD_REQUEST`, and server faults `CSAPI_INTERNAL_ERROR`
 *   (unknown paths and methods: 404 `CSAPI_NOT_FOUND`, by the not-found
 *   handler)
 */
export function errorAnswer(error: RaisedError): {
  status: number;
  answer: SignUpAnswer;
} {
  if (error instanceof FormBodyError) {
    return error.problem === 'media type'
      ? {
          status: 415,
          answer: refusal(API_CODES.unsupportedMediaType, 'content-type'),
        }
      : {
          status: 400,
          answer: refusal(API_CODES.invalidParameter, 'body'),
        };
  }
  if (error instanceof CrossOriginRequestError) {
    return { status: 403, answer: refusal(API_CODES.forbidden, 'origin') };
  }
  if (error instanceof DatabaseUnavailableError) {
    return {
      status: 503,
      answer: refusal(API_CODES.serviceUnavailable, 'database'),
    };
  }
  if (error instanceof PartUnavailableError) {
    return {
      status: 503,
      answer: refusal(API_CODES.serviceUnavailable, error.part),
    };
  }
  const status =
    'statusCode' in error &&
    typeof error.statusCode === 'number' &&
    error.statusCode >= 400 &&
    error.statusCode <= 599
      ? error.statusCode
      : 500;
  switch (status) {
    case 413:
      return { status, answer: refusal(API_CODES.payloadTooLarge, 'body') };
    case 415:
      return {
        status,
        answer: refusal(API_CODES.unsupportedMediaType, 'content-type'),
      };
    case 429:
      return {
        status,
        answer: refusal(API_CODES.rateLimitReached, 'rate limit'),
      };
    default:
      return status >= 500
        ? { status, answer: refusal(API_CODES.internalError, 'server') }
        : { status, answer: refusal(API_CODES.badRequest, 'request') };
  }
}
