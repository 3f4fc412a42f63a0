/**
 * The captcha's verification (issue 35; ADR-0090): a
 * sign-up's `g-recaptcha-response` token is sent to reCAPTCHA's
 * `siteverify` endpoint with the site's secret, and passes only when the
 * answer says `success: true` for the site's own host name. Google's
 * "Verifying the user's response" (developers.google.com/recaptcha/docs/verify)
 * is the protocol: a form POST of `secret` and `response`, a JSON answer
 * with `success`, `hostname` and `error-codes`.
 */

import { PartUnavailableError } from '../http/errorAnswer';

/** Google's endpoint; `www.recaptcha.net` serves the same where google.com is blocked. */
export const GOOGLE_SITEVERIFY_URL =
  'https://www.google.com/recaptcha/api/siteverify';

/** How long the verifier may take, in ms: well within the page's 20 s (ADR-0025). */
export const SITEVERIFY_TIMEOUT_MS = 5_000;

/** How the service verifies tokens: with a secret, at an endpoint. */
export interface CaptchaVerification {
  /** `RECAPTCHA_SECRET`. */
  secret: string;
  /** `RECAPTCHA_VERIFY_URL`; default {@link GOOGLE_SITEVERIFY_URL}. */
  verifyUrl?: string;
  /**
   * The host name a solved captcha must name (`PUBLIC_URL`'s); undefined:
   * not checked (Google's test key answers `testkey.google.com` for any site).
   */
  hostname?: string;
  /** Milliseconds before the verifier counts as unreachable. */
  timeoutMs?: number;
}

/**
 * The verifier could not say (unreachable, a time-out, a 5xx, an answer
 * that is not its JSON, or one that says our own request was wrong): the
 * sign-up cannot be judged, and is answered 503 with nothing created.
 */
export class CaptchaUnavailableError extends PartUnavailableError {
  constructor(reason: string, options?: ErrorOptions) {
    super('captcha', `the captcha could not be verified: ${reason}`, options);
    this.name = 'CaptchaUnavailableError';
  }
}

// The error codes that mean our request, not the visitor's token, is at
// fault: every sign-up would be refused until an operator fixes it.
const OUR_FAULT = new Set([
  'missing-input-secret',
  'invalid-input-secret',
  'bad-request',
]);

/**
 * Asks the verifier about one token.
 *
 * @param verification the secret, the endpoint and the expected host name
 * @param token the visitor's `g-recaptcha-response`
 * @returns true when the verifier answered `success: true` (and, when
 *   `hostname` is set, named that host); false for a token it refused
 *   (unsolved, expired, spent, or solved on another site)
 * @throws CaptchaUnavailableError when the verifier cannot say: no answer
 *   within `timeoutMs`, a network failure, a status other than 2xx, an
 *   answer that is not a JSON object, or an error code that blames the
 *   request (a wrong `RECAPTCHA_SECRET`)
 */
export async function verifyCaptcha(
  verification: CaptchaVerification,
  token: string,
): Promise<boolean> {
  let answer: unknown;
  try {
    const response = await fetch(
      verification.verifyUrl ?? GOOGLE_SITEVERIFY_URL,
      {
        method: 'POST',
        body: new URLSearchParams({
          secret: verification.secret,
          response: token,
        }),
        signal: AbortSignal.timeout(
          verification.timeoutMs ?? SITEVERIFY_TIMEOUT_MS,
        ),
      },
    );
    if (!response.ok) {
      throw new CaptchaUnavailableError(
        `the verifier answered ${response.status}`,
      );
    }
    answer = await response.json();
  } catch (error) {
    if (error instanceof CaptchaUnavailableError) throw error;
    throw new CaptchaUnavailableError('no answer from the verifier', {
      cause: error,
    });
  }
  if (typeof answer !== 'object' || answer === null) {
    throw new CaptchaUnavailableError('the verifier’s answer is not JSON');
  }
  const {
    success,
    hostname,
    'error-codes': codes,
  } = answer as Record<string, unknown>;
  if (
    Array.isArray(codes) &&
    codes.some((code) => typeof code === 'string' && OUR_FAULT.has(code))
  ) {
    throw new CaptchaUnavailableError(
      `the verifier refused the request (${codes.join(', ')}): check RECAPTCHA_SECRET`,
    );
  }
  if (success !== true) return false;
  return (
    verification.hostname === undefined ||
    (typeof hostname === 'string' &&
      hostname.toLowerCase() === verification.hostname.toLowerCase())
  );
}
