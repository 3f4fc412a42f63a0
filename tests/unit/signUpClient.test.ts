import { describe, expect, it } from 'vitest';
import {
  SignUpRejection,
  type Failure,
  type Session,
  type SignUpRequest,
} from '../../machines/signUpContract';
import { failureOf } from '../../machines/signUpMachine';
import {
  createSignUpClient,
  decideSignUpAnswer,
  encodeSignUpRequest,
} from '../../src/signUpClient';

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

describe('encodeSignUpRequest', () => {
  it('encodes exactly name, email, g-recaptcha-response and newsletter', () => {
    expect([...encodeSignUpRequest(request)].sort()).toEqual(
      [
        ['name', 'Ada Lovelace'],
        ['email', 'ada@example.com'],
        ['g-recaptcha-response', 'captcha-token'],
        ['newsletter', '1'],
      ].sort(),
    );
  });

  it.each([
    [true, '1'],
    [false, '0'],
  ])('sends newsletter %s as %j', (newsletter, sent) => {
    expect(
      encodeSignUpRequest({ ...request, newsletter }).getAll('newsletter'),
    ).toEqual([sent]);
  });

  it('adds url and utm_campaign only when given', () => {
    const body = encodeSignUpRequest({
      ...request,
      url: 'https://example.com/status',
      utmCampaign: 'spring-sale',
    });
    expect(body.getAll('url')).toEqual(['https://example.com/status']);
    expect(body.getAll('utm_campaign')).toEqual(['spring-sale']);
    expect(encodeSignUpRequest(request).has('url')).toBe(false);
    expect(encodeSignUpRequest(request).has('utm_campaign')).toBe(false);
  });

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
    // D43: an account with this e-mail address exists.
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
    ['null', null, { kind: 'general', reason: 'malformed' }],
    ['an array', [successAnswer], { kind: 'general', reason: 'malformed' }],
    ['a number', 1, { kind: 'general', reason: 'malformed' }],
    ['a string', 'ok', { kind: 'general', reason: 'malformed' }],
  ])('decides %s', (_case, answer, failure) => {
    expect(decideSignUpAnswer(answer)).toEqual(failure);
  });
});

describe('createSignUpClient', () => {
  it('POSTs to {apiOrigin}/2/account/signup/', async () => {
    const network = answeringJson(successAnswer);
    const submit = createSignUpClient({
      apiOrigin: 'https://api.vigil.example',
      fetch: network.fetch,
    });
    await submit(request);
    expect(network.calls).toHaveLength(1);
    expect(String(network.calls[0]?.input)).toBe(
      'https://api.vigil.example/2/account/signup/',
    );
    expect(network.calls[0]?.init?.method).toBe('POST');
  });

  it('POSTs to the same origin when apiOrigin is empty', async () => {
    const network = answeringJson(successAnswer);
    await createSignUpClient({ apiOrigin: '', fetch: network.fetch })(request);
    expect(String(network.calls[0]?.input)).toBe('/2/account/signup/');
    expect(network.calls[0]?.init?.method).toBe('POST');
  });

  it('sends exactly the required fields, form-encoded', async () => {
    const network = answeringJson(successAnswer);
    await createSignUpClient({ apiOrigin: '', fetch: network.fetch })({
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
    await createSignUpClient({ apiOrigin: '', fetch: network.fetch })({
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
      createSignUpClient({ apiOrigin: '', fetch: network.fetch })(request),
    ).resolves.toEqual({ token: 'the-token', sid: 'the-sid' });
  });

  it.each([429, 200, 503])(
    'rejects with rateLimited on CSAPI_API_RATE_LIMIT_REACHED (HTTP %i)',
    async (status) => {
      const network = answeringJson(
        {
          success: false,
          code: 'CSAPI_API_RATE_LIMIT_REACHED',
          info: 'Too many sign-ups',
        },
        status,
      );
      const submit = createSignUpClient({
        apiOrigin: '',
        fetch: network.fetch,
      });
      expect(await failureFrom(submit(request))).toEqual({
        kind: 'rateLimited',
      });
    },
  );

  it.each([400, 200])(
    'rejects with invalidName on CSAPI_INVALID_PARAMETER for name (HTTP %i)',
    async (status) => {
      const network = answeringJson(
        { success: false, code: 'CSAPI_INVALID_PARAMETER', info: 'name' },
        status,
      );
      const submit = createSignUpClient({
        apiOrigin: '',
        fetch: network.fetch,
      });
      expect(await failureFrom(submit(request))).toEqual({
        kind: 'invalidName',
      });
    },
  );

  it.each([409, 200])(
    'rejects with emailInUse on CSAPI_EMAIL_IN_USE (HTTP %i)',
    async (status) => {
      const network = answeringJson(
        { success: false, code: 'CSAPI_EMAIL_IN_USE', info: 'email' },
        status,
      );
      const submit = createSignUpClient({
        apiOrigin: '',
        fetch: network.fetch,
      });
      expect(await failureFrom(submit(request))).toEqual({
        kind: 'emailInUse',
      });
    },
  );

  it.each<[string, unknown, number]>([
    [
      'CSAPI_INVALID_PARAMETER for email',
      { success: false, code: 'CSAPI_INVALID_PARAMETER', info: 'email' },
      400,
    ],
    [
      'CSAPI_INVALID_PARAMETER for url',
      { success: false, code: 'CSAPI_INVALID_PARAMETER', info: 'url' },
      400,
    ],
    [
      'CSAPI_INVALID_PARAMETER without info',
      { success: false, code: 'CSAPI_INVALID_PARAMETER' },
      400,
    ],
    [
      'CSAPI_CAPTCHA_MISSING',
      {
        success: false,
        code: 'CSAPI_CAPTCHA_MISSING',
        info: 'g-recaptcha-response',
      },
      400,
    ],
    [
      'an unknown code',
      { success: false, code: 'CSAPI_SOMETHING_ELSE', info: 'x' },
      500,
    ],
    ['a failure without a code', { success: false }, 200],
  ])('rejects with a general refusal on %s', async (_case, answer, status) => {
    const network = answeringJson(answer, status);
    const submit = createSignUpClient({ apiOrigin: '', fetch: network.fetch });
    expect(await failureFrom(submit(request))).toEqual({
      kind: 'general',
      reason: 'refused',
    });
  });

  it.each<[string, string]>([
    ['success without data', JSON.stringify({ success: true })],
    [
      'success without one_time_auth',
      JSON.stringify({ success: true, data: {} }),
    ],
    [
      'success without a token',
      JSON.stringify({ success: true, data: { one_time_auth: { sid: 's' } } }),
    ],
    [
      'success without a sid',
      JSON.stringify({
        success: true,
        data: { one_time_auth: { token: 't' } },
      }),
    ],
    [
      'success with an empty token',
      JSON.stringify({
        success: true,
        data: { one_time_auth: { token: '', sid: 's' } },
      }),
    ],
    [
      'success with a numeric token',
      JSON.stringify({
        success: true,
        data: { one_time_auth: { token: 1, sid: 's' } },
      }),
    ],
    [
      'success as a string',
      JSON.stringify({ ...successAnswer, success: 'true' }),
    ],
    [
      'success missing',
      JSON.stringify({ data: successAnswer.data, code: 'X', info: 'name' }),
    ],
    ['a JSON array', JSON.stringify([successAnswer])],
    ['JSON null', 'null'],
    ['a JSON number', '42'],
    ['an empty body', ''],
    ['an HTML page', '<!doctype html><title>502 Bad Gateway</title>'],
  ])('rejects with a general malformed failure on %s', async (_case, body) => {
    const network = answering(body);
    const submit = createSignUpClient({ apiOrigin: '', fetch: network.fetch });
    expect(await failureFrom(submit(request))).toEqual({
      kind: 'general',
      reason: 'malformed',
    });
  });

  it('rejects an HTML error page as malformed', async () => {
    const network = answering('<html><body>Bad Gateway</body></html>', 502);
    const submit = createSignUpClient({ apiOrigin: '', fetch: network.fetch });
    expect(await failureFrom(submit(request))).toEqual({
      kind: 'general',
      reason: 'malformed',
    });
  });

  it('rejects with a general network failure when fetch fails', async () => {
    const network = fakeNetwork(() =>
      Promise.reject(new TypeError('Failed to fetch')),
    );
    const submit = createSignUpClient({ apiOrigin: '', fetch: network.fetch });
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
      apiOrigin: '',
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
