/**
 * How the network answers for each outcome event of the model: the reply a
 * server (or the network) gives that makes the page's real API client
 * decide that outcome (docs/contract.md "HTTP"). The UI level plays them
 * through a fake `fetch`, the browser level through the tests' proxy
 * (tests/browser/support/engines/network.ts).
 */
import type { Failure, Session } from '../../contract/signUp';
import type { SubmitOutcome } from './signUpModel';

export type Reply =
  | { kind: 'response'; status: number; contentType: string; body: string }
  | { kind: 'network-error' }
  | { kind: 'timeout' };

const json = (status: number, value: unknown): Reply => ({
  kind: 'response',
  status,
  contentType: 'application/json; charset=utf-8',
  body: JSON.stringify(value),
});

function failureReply(failure: Failure): Reply {
  switch (failure.kind) {
    case 'rateLimited':
      return json(429, {
        success: false,
        code: 'CSAPI_API_RATE_LIMIT_REACHED',
        info: 'rate limit',
      });
    case 'invalidName':
      return json(400, {
        success: false,
        code: 'CSAPI_INVALID_PARAMETER',
        info: 'name',
      });
    case 'emailInUse':
      return json(409, {
        success: false,
        code: 'CSAPI_EMAIL_IN_USE',
        info: 'email',
      });
    case 'general':
      switch (failure.reason) {
        // A refusal the page has no message of its own for (R8.3).
        case 'refused':
          return json(400, {
            success: false,
            code: 'CSAPI_CAPTCHA_INVALID',
            info: 'g-recaptcha-response',
          });
        case 'malformed':
          return {
            kind: 'response',
            status: 502,
            contentType: 'text/html',
            body: '<html><body><h1>502 Bad Gateway</h1></body></html>',
          };
        case 'network':
          return { kind: 'network-error' };
        case 'timeout':
          return { kind: 'timeout' };
        case 'unexpected':
          throw new Error('no server reply makes the client fail unexpectedly');
      }
  }
}

export function successReply(session: Session): Reply {
  return json(200, { success: true, data: { one_time_auth: session } });
}

/** The reply behind an outcome event of the sign-up model. */
export function replyFor(event: SubmitOutcome): Reply {
  return event.type === 'xstate.done.actor.submitSignUp'
    ? successReply(event.output)
    : failureReply(event.error.failure);
}

/**
 * A fake `fetch` that holds every request until the test answers it with a
 * {@link Reply}: the network is the edge of the page we do not own.
 */
export function heldNetwork() {
  const pending: {
    url: string;
    body: string;
    settle: (reply: Reply) => void;
  }[] = [];
  const requests: { url: string; body: string }[] = [];
  const fetch: typeof globalThis.fetch = (input, init) =>
    new Promise<Response>((resolve, reject) => {
      const request = {
        url: String(input),
        body: String(init?.body ?? ''),
      };
      requests.push(request);
      pending.push({
        ...request,
        settle(reply) {
          if (reply.kind === 'network-error') {
            reject(new TypeError('Failed to fetch'));
          } else if (reply.kind === 'timeout') {
            // What AbortSignal.timeout() rejects a fetch with.
            reject(new DOMException('signal timed out', 'TimeoutError'));
          } else {
            resolve(
              new Response(reply.body, {
                status: reply.status,
                headers: { 'content-type': reply.contentType },
              }),
            );
          }
        },
      });
    });
  return {
    fetch,
    requests,
    /** Answers the oldest request still waiting. */
    answer(reply: Reply) {
      const request = pending.shift();
      if (!request) throw new Error('no request is waiting for a reply');
      request.settle(reply);
    },
  };
}
