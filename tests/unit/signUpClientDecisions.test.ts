/**
 * The API client's request and its decision on a request that gets no
 * answer (docs/contract.md "HTTP", ADR-0025, ADR-0037): what it asks the
 * network for, and which general failure (time-out or network) an error stands
 * for, whatever the network rejects with.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  SignUpRejection,
  type Failure,
  type Session,
  type SignUpRequest,
} from '../../contract/signUp';
import { createSignUpClient } from '../../src/signUp/signUpClient';

const request: SignUpRequest = {
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  captchaToken: 'captcha-token',
  newsletter: false,
};

const SUCCESS = JSON.stringify({
  success: true,
  data: { one_time_auth: { token: 'the-token', sid: 'the-sid' } },
});

/** Checks that a submission rejects with a SignUpRejection for `failure`. */
async function expectFailure(submission: Promise<Session>, failure: Failure) {
  await expect(submission).rejects.toBeInstanceOf(SignUpRejection);
  await expect(submission).rejects.toHaveProperty('failure', failure);
}

/** A network that rejects every request with `error`, at once. */
function rejectingWith(error: unknown): typeof fetch {
  return () => Promise.reject(error);
}

/**
 * A network that never answers and, once the request's signal aborts,
 * rejects with `onAbort(signal)`; it records the signals it was given.
 */
function neverAnswering(onAbort: (signal: AbortSignal) => unknown) {
  const signals: AbortSignal[] = [];
  const fetch: typeof globalThis.fetch = (_input, init) =>
    new Promise<Response>((_resolve, reject) => {
      const signal = init?.signal;
      if (!signal) throw new Error('the request was sent without a signal');
      signals.push(signal);
      signal.addEventListener('abort', () => reject(onAbort(signal)), {
        once: true,
      });
    });
  return { fetch, signals };
}

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe('the request the client makes (docs/contract.md "HTTP")', () => {
  it('asks for JSON and sends cookies to its own origin only', async () => {
    const seen: Request[] = [];
    const submit = createSignUpClient({
      // The platform's fetch builds a Request from the same arguments (the
      // path against the page's address), and refuses options it does not
      // know.
      fetch: async (input, init) => {
        seen.push(
          new Request(
            new URL(String(input), 'https://signup.vigil.example/'),
            init,
          ),
        );
        return new Response(SUCCESS);
      },
    });
    await submit(request);
    expect(seen).toHaveLength(1);
    expect(seen[0]?.headers.get('Accept')).toBe('application/json');
    expect(seen[0]?.credentials).toBe('same-origin');
  });

  it('uses the page’s fetch when given none, as it is at the time of sending', async () => {
    const submit = createSignUpClient({});
    // Stubbed after the client was made: a fetch wrapped later (by error
    // reporting, say) is the one that sends.
    const pageFetch = vi.fn(async () => new Response(SUCCESS));
    vi.stubGlobal('fetch', pageFetch);
    await expect(submit(request)).resolves.toEqual({
      token: 'the-token',
      sid: 'the-sid',
    });
    expect(pageFetch).toHaveBeenCalledTimes(1);
  });

  it('leaves no deadline running once the answer is in', async () => {
    vi.useFakeTimers();
    const submit = createSignUpClient({
      fetch: async () => new Response(SUCCESS),
    });
    await submit(request);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('a request without an answer is a general failure (ADR-0025, R8.3)', () => {
  it.each<[string, 'network' | 'timeout', unknown]>([
    ['a TypeError', 'network', new TypeError('Failed to fetch')],
    ['a string', 'network', 'offline'],
    ['null', 'network', null],
    ['undefined', 'network', undefined],
    [
      'an error of another name',
      'network',
      new DOMException('Refused', 'NetworkError'),
    ],
    // A TimeoutError before the page's deadline (a wrapper's, or the
    // browser's own) is a time-out too.
    [
      'a TimeoutError',
      'timeout',
      new DOMException('Timed out', 'TimeoutError'),
    ],
    // An error from another realm (a frame's, or a wrapper's) is no
    // instance of this realm's DOMException; its name still says it.
    ['a TimeoutError of another realm', 'timeout', { name: 'TimeoutError' }],
  ])(
    'a network that rejects with %s: a %s failure',
    async (_, reason, error) => {
      const submit = createSignUpClient({
        fetch: rejectingWith(error),
      });
      await expectFailure(submit(request), { kind: 'general', reason });
    },
  );

  /**
   * Submits over a network that never answers, with a 20 ms deadline;
   * checks that the submission fails as a time-out.
   *
   * @returns the signals the network was given
   */
  async function pastTheDeadline(onAbort: (signal: AbortSignal) => unknown) {
    const network = neverAnswering(onAbort);
    const submit = createSignUpClient({
      deadlineMs: 20,
      fetch: network.fetch,
    });
    await expectFailure(submit(request), {
      kind: 'general',
      reason: 'timeout',
    });
    return network.signals;
  }

  it('aborts the request at the deadline with a TimeoutError, as AbortSignal.timeout() does', async () => {
    const signals = await pastTheDeadline((signal) => signal.reason);
    const reason: unknown = signals[0]?.reason;
    expect(reason).toBeInstanceOf(DOMException);
    expect((reason as DOMException).name).toBe('TimeoutError');
  });

  it('past the deadline, a network that rejects with an AbortError instead (older engines) is still a time-out', async () => {
    await pastTheDeadline(
      () => new DOMException('The operation was aborted.', 'AbortError'),
    );
  });
});
