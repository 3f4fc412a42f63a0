/**
 * The sign-up contract (docs/contract.md, "HTTP"; R3.1 to R3.6 in
 * docs/requirements.md): what the page sends, what the API answers (the
 * codes the page decides on; every code is contract/apiCodes.ts's), and
 * the failure kinds the page tells apart. One module for the
 * three parties that speak it: the sign-up machine (its actor's input and
 * output), the page's API client (src/signUp/signUpClient.ts) and the service
 * (server/). It lives in contract/, the bottom layer, and imports
 * nothing, so each of them can.
 */

/** Where the page sends a sign-up, on its own origin (ADR-0087). */
export const SIGN_UP_PATH = '/2/account/signup/';

/**
 * The form-encoded field of each part of a {@link SignUpRequest}, in the
 * payload's order (R3.1).
 */
export const SIGN_UP_FIELDS = {
  name: 'name',
  email: 'email',
  captchaToken: 'g-recaptcha-response',
  newsletter: 'newsletter',
  url: 'url',
  utmCampaign: 'utm_campaign',
} as const;

/**
 * The answer codes the page decides on (R8.1, R8.2; ADR-0043 for
 * `emailInUse`); any other is general. A list of
 * their own, so that the page's first load carries these three only.
 */
export const SIGN_UP_CODES = {
  rateLimitReached: 'CSAPI_API_RATE_LIMIT_REACHED',
  invalidParameter: 'CSAPI_INVALID_PARAMETER',
  emailInUse: 'CSAPI_EMAIL_IN_USE',
} as const;

/** What the page sends, after the form's rules (R3.1, R5). */
export interface SignUpRequest {
  /** Trimmed, not empty. */
  name: string;
  /** Trimmed, a valid address. */
  email: string;
  /** The captcha's one-time token. */
  captchaToken: string;
  /** Sent as `1` or `0`. */
  newsletter: boolean;
  /** With its protocol (R3.3, R5.5). */
  url?: string;
  /** The kept campaign value (ADR-0009, ADR-0010). */
  utmCampaign?: string;
}

/** `data.one_time_auth` of a successful answer (R3.5). */
export interface Session {
  token: string;
  /** A UUID (contract/formats.ts `UUID_PATTERN`). */
  sid: string;
}

/** The JSON body of every answer of the API (R3.5, R3.6, R7.1). */
export type SignUpAnswer =
  | { success: true; data: { one_time_auth: Session } }
  | { success: false; code: string; info: string };

/** Why a failure is "general": for error reporting, never shown apart. */
export type GeneralFailureReason =
  'network' | 'timeout' | 'malformed' | 'refused' | 'unexpected';

/**
 * The one error a failed sign-up shows (R8.1–R8.3): `emailInUse` is an
 * account with that e-mail address existing already (ADR-0043), shown in the
 * general area with a message of its own.
 */
export type Failure =
  | { kind: 'rateLimited' }
  | { kind: 'invalidName' }
  | { kind: 'emailInUse' }
  | { kind: 'general'; reason: GeneralFailureReason };

/**
 * How the client's promise rejects: with the failure it decided on.
 * Anything else a sender might throw is a general failure ({@link failureOf}).
 */
export class SignUpRejection extends Error {
  constructor(readonly failure: Failure) {
    super(`sign-up failed: ${failure.kind}`);
    this.name = 'SignUpRejection';
  }
}

/**
 * The failure an error from the sign-up actor stands for (R8.1 to R8.3):
 * a {@link SignUpRejection}'s, else a general one.
 */
export function failureOf(error: unknown): Failure {
  return error instanceof SignUpRejection
    ? error.failure
    : { kind: 'general', reason: 'unexpected' };
}
