/**
 * The outbox's HTTP channels (issue 60): a notice POSTed to a webhook,
 * Slack, Discord or ntfy, through the poster the service gives the outbox
 * (the monitor's SSRF-safe client: its address rule, a pinned
 * connection, connect 5 s and 10 s in all, no redirect followed, at most
 * 4 KiB of the answer read). This file knows no feature: it lays the
 * notice out (./httpFormats.ts) and reads the answer.
 */
import type { Notice } from '../notice';
import {
  discordRequest,
  ntfyRequest,
  slackRequest,
  webhookRequest,
  type HttpRequestBody,
} from './httpFormats';

/** What a POST came to: an answer, or a failure before one. */
export type PostAnswer =
  | {
      kind: 'answered';
      status: number;
      /** `Retry-After`, in ms, when the answer had one. */
      retryAfterMs?: number | undefined;
      /** The answer's first bytes, cleaned of anything a page could not show. */
      body: string;
      ms: number;
    }
  | {
      kind: 'failed';
      /** `not_public`, `no_such_name`, `unreachable`, `timeout`, `certificate`, `redirect`, `invalid_url`. */
      reason: string;
      detail?: string | undefined;
      ms: number;
    };

/**
 * POSTs a request to a URL under the monitor's rules; never throws for the
 * network (a failure is an answer of kind `failed`).
 */
export type HttpPoster = (
  url: string,
  request: HttpRequestBody,
  signal?: AbortSignal,
) => Promise<PostAnswer>;

/** How one HTTP delivery ended, in the outbox's terms. */
export type HttpOutcome =
  | { ok: true; status: number }
  | {
      ok: false;
      /** Our words, ≤ 200 characters, no remote text. */
      error: string;
      status?: number | undefined;
      /** 410 Gone: the destination is no more. */
      gone: boolean;
      /** At least this long before the next attempt (`Retry-After`), in ms. */
      retryAfterMs?: number | undefined;
    };

/** The words of a failure before any answer. */
const FAILURES: Readonly<Record<string, (detail: string) => string>> = {
  not_public: (detail) =>
    `refused: ${detail || 'its address'} is not a public address`,
  no_such_name: () => 'its host name does not resolve',
  unreachable: (detail) => `could not connect${detail ? ` (${detail})` : ''}`,
  timeout: (detail) => `no answer in time${detail ? ` (${detail})` : ''}`,
  certificate: (detail) =>
    `its certificate is not valid${detail ? ` (${detail})` : ''}`,
  redirect: (detail) =>
    `it answered a redirect (${detail}), which is not followed`,
  invalid_url: () => 'its URL cannot be used',
};

/**
 * The request of a notice for one HTTP channel kind.
 *
 * @param webhook a webhook's id (the delivery's, the same on every
 *   attempt), signing secret and moment; required for `webhook`
 * @throws Error for a webhook without its signing secret or a notice that
 *   has no webhook body
 */
export function requestFor(
  channel: 'webhook' | 'slack' | 'discord' | 'ntfy',
  notice: Notice,
  webhook: { id: string; secret: string | null; at: Date },
): HttpRequestBody {
  switch (channel) {
    case 'slack':
      return slackRequest(notice);
    case 'discord':
      return discordRequest(notice);
    case 'ntfy':
      return ntfyRequest(notice);
    case 'webhook':
      if (webhook.secret === null) {
        throw new Error('a webhook delivery has no signing secret');
      }
      return webhookRequest(notice, { ...webhook, secret: webhook.secret });
  }
}

/**
 * What an answer means for a delivery: a 2xx arrived; a 410 is gone for
 * good; anything else is retried (with `Retry-After` honoured on a 429 or
 * 503, RFC 9110 §10.2.3, RFC 6585 §4).
 */
export function outcomeOf(answer: PostAnswer): HttpOutcome {
  if (answer.kind === 'failed') {
    const words = FAILURES[answer.reason] ?? (() => answer.reason);
    return { ok: false, error: words(answer.detail ?? ''), gone: false };
  }
  const { status } = answer;
  if (status >= 200 && status <= 299) return { ok: true, status };
  return {
    ok: false,
    error: `it answered HTTP ${status}`,
    status,
    gone: status === 410,
    retryAfterMs:
      status === 429 || status === 503 ? answer.retryAfterMs : undefined,
  };
}
