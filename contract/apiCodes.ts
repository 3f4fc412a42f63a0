/**
 * Every answer code of the service's APIs (docs/contract.md, "HTTP"), for
 * the service: the page decides on three of them, which it takes from
 * contract/signUp.ts alone, so that its first load carries no more.
 */
import { SIGN_UP_CODES } from './signUp';

/**
 * Every answer code of the APIs (docs/contract.md, "HTTP"): the sign-up's
 * and the consent record's, {@link SIGN_UP_CODES} among them.
 */
export const API_CODES = {
  ...SIGN_UP_CODES,
  captchaMissing: 'CSAPI_CAPTCHA_MISSING',
  captchaInvalid: 'CSAPI_CAPTCHA_INVALID',
  forbidden: 'CSAPI_FORBIDDEN',
  notFound: 'CSAPI_NOT_FOUND',
  payloadTooLarge: 'CSAPI_PAYLOAD_TOO_LARGE',
  unsupportedMediaType: 'CSAPI_UNSUPPORTED_MEDIA_TYPE',
  badRequest: 'CSAPI_BAD_REQUEST',
  serviceUnavailable: 'CSAPI_SERVICE_UNAVAILABLE',
  internalError: 'CSAPI_INTERNAL_ERROR',
} as const;

/** One of {@link API_CODES}. */
export type ApiCode = (typeof API_CODES)[keyof typeof API_CODES];
