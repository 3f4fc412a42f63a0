import { describe, expect, it } from 'vitest';
import {
  SignUpRejection,
  type Failure,
  type Session,
  type SignUpRequest,
} from '../../contract/signUp';
import { failureOf } from '../../contract/signUp';
import {
  createSignUpClient,
  decideSignUpAnswer,
  encodeSignUpRequest,
} from '../../src/signUp/signUpClient';

const request: SignUpRequest = {
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  captchaToken: 'captcha-token',
  newsletter: true,
};

const successAnswer = {
  success: true,
  data: { one_time_auth: { token: 'the-token', sid: 'the-sid' } },
};

interface FetchCall {
  input: RequestInfo | URL;
  init: RequestInit | undefined;
}

/** A fake network that answers every request with `answer()`. */
function fakeNetwork(answer: () => Promise<Response>) {
  const calls: FetchCall[] = [];
  const fetch: typeof globalThis.fetch = (input, init) => {
    calls.push({ input, init });
    return answer();
  };
  return { fetch, calls };
}

function answering(body: string, status = 200) {
  return fakeNetwork(async () => new Response(body, { status }));
}

function answeringJson(value: unknown, status = 200) {
  return answering(JSON.stringify(value), status);
}

/** The failure a submission rejected with; fails unless a SignUpRejection. */
async function failureFrom(promise: Promise<Session>): Promise<Failure> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(SignUpRejection);
  return failureOf(error);
}

/** What a server would receive for one recorded fetch call. */
function received(call: FetchCall | undefined): Request {
  if (call === undefined) throw new Error('fetch was not called');
  const { input, init } = call;
  const url = input instanceof Request ? input.url : String(input);
  return new Request(new URL(url, 'http://localhost:3000'), {
    method: init?.method,
    headers: init?.headers,
    body: init?.body,
  });
}

async function receivedFields(call: FetchCall | undefined) {
  const sent = received(call);
  expect(sent.headers.get('Content-Type')).toMatch(
    /^application\/x-www-form-urlencoded\b/,
  );
  return [...new URLSearchParams(await sent.text())];
}

// The fields sent, and when url and utm_campaign are left out, are checked
// on the request the client makes (createSignUpClient below).
describe('encodeSignUpRequest', () => {
  it('form-encodes characters that have a meaning in a query', () => {
    const body = encodeSignUpRequest({
      ...request,
      name: 'Zoë & Co = 100%',
      email: 'a+b@example.com',
    });
    const decoded = new URLSearchParams(body.toString());
    expect(decoded.get('name')).toBe('Zoë & Co = 100%');
    expect(decoded.get('email')).toBe('a+b@example.com');
  });
});

describe('decideSignUpAnswer', () => {
  const malformed: Failure = { kind: 'general', reason: 'malformed' };
  /** A successful answer with this `one_time_auth`. */
  const success = (auth: unknown) => ({
    success: true,
    data: { one_time_auth: auth },
  });

  it('returns the session of a successful answer', () => {
    expect(decideSignUpAnswer(successAnswer)).toEqual({
      token: 'the-token',
      sid: 'the-sid',
    });
  });

  it.each<[string, unknown, Failure]>([
    [
      'the rate limit',
      { success: false, code: 'CSAPI_API_RATE_LIMIT_REACHED', info: '' },
      { kind: 'rateLimited' },
    ],
    [
      'a refused name',
      { success: false, code: 'CSAPI_INVALID_PARAMETER', info: 'name' },
      { kind: 'invalidName' },
    ],
    // ADR-0043: an account with this e-mail address exists.
    [
      'an e-mail address in use',
      { success: false, code: 'CSAPI_EMAIL_IN_USE', info: 'email' },
      { kind: 'emailInUse' },
    ],
    [
      'an e-mail address in use, whatever its info',
      { success: false, code: 'CSAPI_EMAIL_IN_USE' },
      { kind: 'emailInUse' },
    ],
    // The local API's code before CSAPI_EMAIL_IN_USE replaced it: no code
    // the page knows, so a general refusal.
    [
      'the retired CSAPI_ACCOUNT_EXISTS',
      { success: false, code: 'CSAPI_ACCOUNT_EXISTS', info: 'email' },
      { kind: 'general', reason: 'refused' },
    ],
    [
      'another refused parameter',
      { success: false, code: 'CSAPI_INVALID_PARAMETER', info: 'email' },
      { kind: 'general', reason: 'refused' },
    ],
    [
      'the database unavailable (docs/contract.md: 503)',
      { success: false, code: 'CSAPI_SERVICE_UNAVAILABLE', info: 'database' },
      { kind: 'general', reason: 'refused' },
    ],
    [
      'another code with info name',
      { success: false, code: 'CSAPI_CAPTCHA_MISSING', info: 'name' },
      { kind: 'general', reason: 'refused' },
    ],
    [
      'a refused url',
      { success: false, code: 'CSAPI_INVALID_PARAMETER', info: 'url' },
      { kind: 'general', reason: 'refused' },
    ],
    [
      'a refused parameter without info',
      { success: false, code: 'CSAPI_INVALID_PARAMETER' },
      { kind: 'general', reason: 'refused' },
    ],
    [
      'an unknown code',
      { success: false, code: 'CSAPI_SOMETHING_ELSE', info: 'x' },
      { kind: 'general', reason: 'refused' },
    ],
    [
      'a failure without a code',
      { success: false },
      { kind: 'general', reason: 'refused' },
    ],
    ['null', null, malformed],
    ['an array', [successAnswer], malformed],
    ['a number', 1, malformed],
    ['a string', 'ok', malformed],
    ['success without data', { success: true }, malformed],
    ['success without one_time_auth', { success: true, data: {} }, malformed],
    ['success without a token', success({ sid: 's' }), malformed],
    ['success without a sid', success({ token: 't' }), malformed],
    [
      'success with an empty token',
      success({ token: '', sid: 's' }),
      malformed,
    ],
    [
      'success with a numeric token',
      success({ token: 1, sid: 's' }),
      malformed,
    ],
    ['success as a string', { ...successAnswer, success: 'true' }, malformed],
    [
      'success missing',
      { data: successAnswer.data, code: 'X', info: 'name' },
      malformed,
    ],
  ])('decides %s', (_case, answer, failure) => {
    expect(decideSignUpAnswer(answer)).toEqual(failure);
  });
});

describe('createSignUpClient', () => {
  it('POSTs to /2/account/signup/ on the page’s own origin', async () => {
    const network = answeringJson(successAnswer);
    await createSignUpClient({ fetch: network.fetch })(request);
    expect(network.calls).toHaveLength(1);
    expect(String(network.calls[0]?.input)).toBe('/2/account/signup/');
    expect(network.calls[0]?.init?.method).toBe('POST');
  });

  it('sends exactly the required fields, form-encoded', async () => {
    const network = answeringJson(successAnswer);
    await createSignUpClient({ fetch: network.fetch })({
      ...request,
      newsletter: false,
    });
    expect((await receivedFields(network.calls[0])).sort()).toEqual(
      [
        ['name', 'Ada Lovelace'],
        ['email', 'ada@example.com'],
        ['g-recaptcha-response', 'captcha-token'],
        ['newsletter', '0'],
      ].sort(),
    );
  });

  it('sends url and utm_campaign when given', async () => {
    const network = answeringJson(successAnswer);
    await createSignUpClient({ fetch: network.fetch })({
      ...request,
      url: 'https://example.com/status?x=1&y=2',
      utmCampaign: 'spring sale',
    });
    expect((await receivedFields(network.calls[0])).sort()).toEqual(
      [
        ['name', 'Ada Lovelace'],
        ['email', 'ada@example.com'],
        ['g-recaptcha-response', 'captcha-token'],
        ['newsletter', '1'],
        ['url', 'https://example.com/status?x=1&y=2'],
        ['utm_campaign', 'spring sale'],
      ].sort(),
    );
  });

  it('resolves with the token and sid of a successful answer', async () => {
    const network = answeringJson(successAnswer);
    await expect(
      createSignUpClient({ fetch: network.fetch })(request),
    ).resolves.toEqual({ token: 'the-token', sid: 'the-sid' });
  });

  // The decision on each answer is decideSignUpAnswer's (above); the client
  // decides on the body, never on the HTTP status.
  it.each<[number, string, string, 'refused' | Failure['kind']]>([
    [429, 'CSAPI_API_RATE_LIMIT_REACHED', 'Too many sign-ups', 'rateLimited'],
    [200, 'CSAPI_API_RATE_LIMIT_REACHED', 'Too many sign-ups', 'rateLimited'],
    [503, 'CSAPI_API_RATE_LIMIT_REACHED', 'Too many sign-ups', 'rateLimited'],
    [400, 'CSAPI_INVALID_PARAMETER', 'name', 'invalidName'],
    [200, 'CSAPI_INVALID_PARAMETER', 'name', 'invalidName'],
    [409, 'CSAPI_EMAIL_IN_USE', 'email', 'emailInUse'],
    [200, 'CSAPI_EMAIL_IN_USE', 'email', 'emailInUse'],
    [400, 'CSAPI_CAPTCHA_MISSING', 'g-recaptcha-response', 'refused'],
    [500, 'CSAPI_SOMETHING_ELSE', 'x', 'refused'],
  ])('HTTP %i with %s (%s) rejects as %s', async (status, code, info, kind) => {
    const network = answeringJson({ success: false, code, info }, status);
    const submit = createSignUpClient({ fetch: network.fetch });
    expect(await failureFrom(submit(request))).toEqual(
      kind === 'refused' ? { kind: 'general', reason: 'refused' } : { kind },
    );
  });

  it.each<[string, string, number]>([
    ['an empty body', '', 200],
    ['an HTML page', '<!doctype html><title>502 Bad Gateway</title>', 200],
    ['an HTML error page', '<html><body>Bad Gateway</body></html>', 502],
  ])('rejects %s as malformed', async (_case, body, status) => {
    const network = answering(body, status);
    const submit = createSignUpClient({ fetch: network.fetch });
    expect(await failureFrom(submit(request))).toEqual({
      kind: 'general',
      reason: 'malformed',
    });
  });

  it('rejects with a general network failure when fetch fails', async () => {
    const network = fakeNetwork(() =>
      Promise.reject(new TypeError('Failed to fetch')),
    );
    const submit = createSignUpClient({ fetch: network.fetch });
    expect(await failureFrom(submit(request))).toEqual({
      kind: 'general',
      reason: 'network',
    });
  });

  it('rejects with a general timeout past the deadline', async () => {
    const calls: FetchCall[] = [];
    // Like the real fetch: never settles by itself, rejects with the
    // signal's reason once the signal aborts.
    const never: typeof fetch = (input, init) => {
      calls.push({ input, init });
      return new Promise<Response>((_resolve, reject) => {
        const signal = init?.signal;
        if (!signal) {
          reject(new Error('the request was sent without a signal'));
          return;
        }
        signal.addEventListener('abort', () => reject(signal.reason), {
          once: true,
        });
      });
    };
    const submit = createSignUpClient({
      deadlineMs: 50,
      fetch: never,
    });
    expect(await failureFrom(submit(request))).toEqual({
      kind: 'general',
      reason: 'timeout',
    });
    expect(calls).toHaveLength(1);
  });
});
