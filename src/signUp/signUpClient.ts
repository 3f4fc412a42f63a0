/**
 * The one API client of the page: `POST /2/account/signup/` on the page's own origin
 * (R7.1 in docs/requirements.md, docs/contract.md "HTTP"). It resolves
 * with the session of a successful answer and otherwise rejects with a
 * {@link SignUpRejection} carrying the decided failure, so the machine
 * never sees an untyped error.
 */
import {
  SIGN_UP_CODES,
  SIGN_UP_FIELDS,
  SIGN_UP_PATH,
  SignUpRejection,
  type Failure,
  type Session,
  type SignUpRequest,
} from '../../contract/signUp';

/** How long the page waits for an answer before calling it a general failure. */
export const DEFAULT_DEADLINE_MS = 20_000;

export interface SignUpClientOptions {
  /** Milliseconds before the request is aborted; default {@link DEFAULT_DEADLINE_MS}. */
  deadlineMs?: number;
  /** The network; tests pass a fake. Default: the global `fetch`. */
  fetch?: typeof fetch;
}

/**
 * The form payload of R3.1 to R3.4 (docs/requirements.md), in its order:
 * `newsletter` as `1`/`0`, `url` (with its protocol) and `utm_campaign`
 * only when given.
 */
export function encodeSignUpRequest(request: SignUpRequest): URLSearchParams {
  const body = new URLSearchParams({
    [SIGN_UP_FIELDS.name]: request.name,
    [SIGN_UP_FIELDS.email]: request.email,
    [SIGN_UP_FIELDS.captchaToken]: request.captchaToken,
    [SIGN_UP_FIELDS.newsletter]: request.newsletter ? '1' : '0',
  });
  if (request.url) body.set(SIGN_UP_FIELDS.url, request.url);
  if (request.utmCampaign) {
    body.set(SIGN_UP_FIELDS.utmCampaign, request.utmCampaign);
  }
  return body;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function nonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value !== '';
}

/**
 * Decides on a parsed answer (R8.1 to R8.3 in docs/requirements.md, ADR-0043,
 * docs/contract.md "HTTP"): on `success`, `code` and
 * `info`, never on the HTTP status. `CSAPI_EMAIL_IN_USE` is decided on its
 * code alone, which names one refusal, whatever its `info`.
 *
 * @returns the session, or the failure to show
 */
export function decideSignUpAnswer(answer: unknown): Session | Failure {
  if (!isRecord(answer)) return { kind: 'general', reason: 'malformed' };
  if (answer.success === true) {
    const auth = isRecord(answer.data) ? answer.data.one_time_auth : undefined;
    if (
      isRecord(auth) &&
      nonEmptyString(auth.token) &&
      nonEmptyString(auth.sid)
    ) {
      return { token: auth.token, sid: auth.sid };
    }
    return { kind: 'general', reason: 'malformed' };
  }
  if (answer.success !== false) return { kind: 'general', reason: 'malformed' };
  if (answer.code === SIGN_UP_CODES.rateLimitReached) {
    return { kind: 'rateLimited' };
  }
  if (answer.code === SIGN_UP_CODES.emailInUse) return { kind: 'emailInUse' };
  if (
    answer.code === SIGN_UP_CODES.invalidParameter &&
    answer.info === SIGN_UP_FIELDS.name
  ) {
    return { kind: 'invalidName' };
  }
  return { kind: 'general', reason: 'refused' };
}

/**
 * Creates the `submitSignUp` function.
 *
 * @returns `submit(request)`: resolves with `{ token, sid }`; rejects only
 *   with a {@link SignUpRejection} (rate limit, refused name, e-mail
 *   address in use, or general:
 *   refused by the server, malformed or non-JSON answer, network error,
 *   time-out)
 */
export function createSignUpClient(options: SignUpClientOptions) {
  const send = options.fetch ?? ((...args) => fetch(...args));
  const deadlineMs = options.deadlineMs ?? DEFAULT_DEADLINE_MS;
  const endpoint = SIGN_UP_PATH;

  return async function submit(request: SignUpRequest): Promise<Session> {
    let text: string;
    // The page's own timer rather than AbortSignal.timeout(): the same
    // deadline, but one that a test's fake clock can move forward.
    const deadline = new AbortController();
    const timer = setTimeout(
      () =>
        deadline.abort(
          // The name decides (no code reads a message, no visitor sees one).
          new DOMException(undefined, 'TimeoutError'),
        ),
      deadlineMs,
    );
    try {
      const response = await send(endpoint, {
        method: 'POST',
        headers: { Accept: 'application/json' },
        // URLSearchParams sets application/x-www-form-urlencoded;charset=UTF-8.
        body: encodeSignUpRequest(request),
        credentials: 'same-origin',
        signal: deadline.signal,
      });
      text = await response.text();
    } catch (error) {
      // A fetch aborted by the deadline rejects with the abort reason, a
      // DOMException named TimeoutError; match the name, as the DOMException
      // may come from another realm.
      const timedOut =
        deadline.signal.aborted ||
        (typeof error === 'object' &&
          error !== null &&
          'name' in error &&
          error.name === 'TimeoutError');
      throw new SignUpRejection({
        kind: 'general',
        reason: timedOut ? 'timeout' : 'network',
      });
    } finally {
      clearTimeout(timer);
    }
    let answer: unknown;
    try {
      answer = JSON.parse(text);
    } catch {
      // Not JSON: `answer` stays undefined, which is malformed too.
    }
    const decision = decideSignUpAnswer(answer);
    if ('kind' in decision) throw new SignUpRejection(decision);
    return decision;
  };
}
