/**
 * The network edge of the browser tests in every engine: one local
 * intercepting HTTP(S) proxy (mockttp) that each engine sends all its
 * traffic through, loopback included.
 *
 * Why a proxy: WebKit is driven over classic WebDriver, which has no request
 * interception, while the tests must replace what we do not own (Google's
 * reCAPTCHA script, the tracking tag) and answer the sign-up for failures
 * the local API cannot produce on demand (a dropped connection, a 502 page).
 * A proxy does this the same way in all three engines, at the same place a
 * real network would, so the page runs unchanged: no test hook in the
 * build, no per-engine interception API. It terminates TLS with its own
 * throwaway CA, which the engines accept as they accept the HTTPS test
 * server's self-signed certificate (`acceptInsecureCerts`).
 *
 * What it answers:
 * - `https://www.google.com/recaptcha/…` (and recaptcha.net): the local fake
 *   of Google's script (harness/page/fakeRecaptcha.ts);
 * - {@link TEST_TAG_URL}: the fake tag (harness/page/fakeTag.ts), counted;
 * - `POST /2/account/signup/` on the local host: recorded, and passed to the
 *   local API, or held until the test says how it ends (see {@link holdSignUps});
 * - scripts of the local host's pages: passed, or held while a test plays a
 *   visitor on a slow connection (see {@link holdPageScripts});
 * - hosts under {@link TEST_COOKIE_DOMAIN}: the local host (127.0.0.1), as a
 *   DNS entry would, for the Secure and domain-wide cookies;
 * - anything else on the local host (localhost, 127.0.0.1): passed through;
 * - every request passed to the local host: recorded with its answer (see
 *   {@link NetworkEdge.exchanges}), so a test can read what the engine sent
 *   (its cookies) and what the server answered (the sign-up's token); each
 *   answer is read whole before the engine gets it, not streamed;
 * - any other host (the engines' own update and telemetry calls, the error
 *   reports' host): the connection is closed, so nothing leaves the machine.
 */
import {
  generateCACertificate,
  getLocal,
  type CompletedRequest,
  type Mockttp,
  type requestSteps,
} from 'mockttp';
import { SIGN_UP_PATH } from '../../../../contract/signUp';
import {
  fakeRecaptchaScript,
  RECAPTCHA_SCRIPT_PATTERN,
} from '../../../../harness/page/fakeRecaptcha';
import { FAKE_TAG_SCRIPT } from '../../../../harness/page/fakeTag';
import type { Reply } from '../../../../harness/model/serverReplies';
import type {
  HeldChunkRequest,
  HeldChunkRequests,
  HeldSignUpRequest,
} from '../../../../harness/model/visitor';
import {
  TEST_COOKIE_DOMAIN,
  TEST_TAG_URL,
} from '../../../../harness/page/paths';

/** A sign-up request as it left the engine. */
export interface SeenSignUp {
  method: string;
  /** Lower-case header names. */
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * A request the proxy passed on to the local host's servers, as the engine
 * sent it, and the server's answer to it as the server sent it.
 */
export interface SeenExchange {
  method: string;
  /** As the engine asked for it, e.g. `http://localhost:43123/`. */
  url: string;
  /** Lower-case header names; `cookie` holds the cookies the engine sent. */
  headers: Record<string, string | string[] | undefined>;
  /**
   * The server's answer, before the engine sees it; undefined until it has
   * come, and for a sign-up the proxy answered itself ({@link HeldSignUp}).
   */
  response?: SeenResponse;
}

/** A server's answer seen by the proxy ({@link SeenExchange}). */
export interface SeenResponse {
  status: number;
  /** Lower-case header names; `set-cookie` is an array. */
  headers: Record<string, string | string[] | undefined>;
  /** The body, decoded from its content encoding. */
  text: () => Promise<string>;
}

/**
 * The cookies a request carried, by name, with their values exactly as the
 * engine sent them (not percent-decoded).
 */
export function cookiesSent(exchange: SeenExchange): Map<string, string> {
  const header = exchange.headers.cookie;
  const pairs = (Array.isArray(header) ? header : [header ?? ''])
    .flatMap((line) => line.split(';'))
    .map((pair) => pair.trim())
    .filter((pair) => pair !== '');
  return new Map(
    pairs.map((pair) => {
      const equals = pair.indexOf('=');
      return equals < 0
        ? ['', pair]
        : [pair.slice(0, equals), pair.slice(equals + 1)];
    }),
  );
}

/**
 * A held sign-up: `pass` lets it go on to the local API; a reply answers
 * it in the API's place. `network-error` and `timeout` reset the
 * connection: the page sees the network fail (its own 20 s deadline is
 * tested in Chromium with a fake clock, tests/browser/faults.test.ts). An
 * engine may resend a request whose connection was reset (Chromium does, on
 * a reused connection); the same request is then reset again, as a network
 * that is down would.
 */
export interface HeldSignUp extends SeenSignUp, HeldSignUpRequest {}

/**
 * A request for one of the page's chunks (ADR-0058, ADR-0071), held until the
 * test says whether it arrives (`pass`) or the network fails (`fail`,
 * ADR-0059).
 */
export type HeldChunk = HeldChunkRequest;

/**
 * The held requests for each chunk: the submit chunk (the form's rules
 * and the API client) and the host rule's, in the order they came.
 */
export type HeldChunks = HeldChunkRequests;

/** The chunks' files. */
const CHUNKS = {
  submit: /^\/submitChunk\.[0-9a-f]+\.js$/,
  hostRule: /^\/hostRuleChunk\.[0-9a-f]+\.js$/,
} as const;

/** Which chunk a path names, if any. */
function chunkOf(pathname: string): keyof typeof CHUNKS | undefined {
  return (Object.keys(CHUNKS) as (keyof typeof CHUNKS)[]).find((kind) =>
    CHUNKS[kind].test(pathname),
  );
}

/** Where the proxy serves the init scripts, on each page's own origin. */
export const INIT_SCRIPT_PATH = '/__test-init.js';

/** After the `<html>` start tag, or at the start: before every script. */
function withInitScript(html: string): string {
  const tag = `<script src="${INIT_SCRIPT_PATH}"></script>`;
  const start = /<html(?:\s[^>]*)?>/i.exec(html);
  const at = start ? start.index + start[0].length : 0;
  return `${html.slice(0, at)}${tag}${html.slice(at)}`;
}

export interface NetworkEdge {
  /** The proxy's port on 127.0.0.1. */
  port: number;
  /** Every sign-up request since the last {@link NetworkEdge.reset}. */
  signUps: SeenSignUp[];
  /**
   * Every request passed on to the local host's servers since the last reset
   * (pages, scripts, sign-ups, forms), in the order they reached the proxy,
   * each with its answer once it came.
   */
  exchanges: SeenExchange[];
  /** Requests that reached {@link TEST_TAG_URL} since the last reset. */
  tagRequests: () => number;
  /**
   * From now until the next reset, holds each sign-up request until the
   * test settles it; the held requests queue up in the returned array.
   */
  holdSignUps: () => HeldSignUp[];
  /**
   * From now until the next reset, holds each request for a chunk until
   * the test settles it; they queue up in the returned arrays.
   */
  holdChunks: () => HeldChunks;
  /**
   * From now until `release` (or the next reset), holds every request for
   * a script of the local host's pages: the page runs as on a slow
   * connection, before its app script has arrived.
   */
  holdPageScripts: () => HeldScripts;
  /**
   * From now until the next reset, runs `source` before any script of each
   * page the local host serves, as a browser's init script (Playwright's
   * `addInitScript`) or an extension's content script at `document_start`
   * would: the proxy serves it from the page's own origin ({@link
   * INIT_SCRIPT_PATH}, which the page's CSP allows as `'self'`) and puts it
   * first in each HTML answer, fetched again each time (no-store, no
   * revalidation). Classic WebDriver (WebKit) has no init scripts, so the
   * same way serves all three engines.
   */
  addInitScript: (source: string) => void;
  /**
   * From now until the next reset, adds the header to every request the
   * engine sends to the local host (recorded with it in
   * {@link NetworkEdge.exchanges}), as a browser that always sends it would.
   */
  addRequestHeader: (name: string, value: string) => void;
  /**
   * From now until the next reset, answers `GET /` on the local host's hosts
   * with an empty page instead of the service's first sign-in, which would
   * spend and clear the login cookies the sign-up page just wrote: for a
   * test of how the engine stores those cookies.
   */
  keepLoginCookies: () => void;
  /** Forgets what was seen, stops holding, lets held requests pass. */
  reset: () => void;
  stop: () => Promise<void>;
}

/** Scripts held back by {@link NetworkEdge.holdPageScripts}. */
export interface HeldScripts {
  /** How many script requests are waiting. */
  waiting: () => number;
  /** Lets them, and any later one, through. */
  release: () => void;
}

type CallbackRequestResult = requestSteps.CallbackRequestResult;

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

function hostOf(request: CompletedRequest): string {
  return new URL(request.url).hostname;
}

const isProductHost = (host: string) =>
  host.endsWith(TEST_COOKIE_DOMAIN) ||
  host === TEST_COOKIE_DOMAIN.replace(/^\./, '');

/** Where a request to a product host really goes: this machine. */
function toThisMachine(
  request: Pick<CompletedRequest, 'url' | 'headers'>,
): CallbackRequestResult {
  const url = new URL(request.url);
  if (!isProductHost(url.hostname)) return {};
  const host = url.host;
  url.hostname = '127.0.0.1';
  return { url: url.href, headers: { ...request.headers, host } };
}

function answer(reply: Reply): CallbackRequestResult {
  if (reply.kind !== 'response') return { response: 'reset' };
  return {
    response: {
      statusCode: reply.status,
      headers: { 'content-type': reply.contentType },
      body: reply.body,
    },
  };
}

/** Starts the proxy on a free port of 127.0.0.1. */
export async function startNetworkEdge(): Promise<NetworkEdge> {
  const proxy: Mockttp = getLocal({
    https: await generateCACertificate({ bits: 2048 }),
    http2: false,
  });
  await proxy.start();
  let signUps: SeenSignUp[] = [];
  let exchanges: SeenExchange[] = [];
  // The recorded exchanges by mockttp's request id, until their answer.
  const unanswered = new Map<string, SeenExchange>();
  let tagRequests = 0;
  let held: HeldSignUp[] | undefined;
  let heldChunks: HeldChunks | undefined;
  // The chunk URLs whose connection was reset: an engine's resend of one is
  // reset again, as a network that is down would, until the test's next
  // step (`forgetFailures`), after which a request is the page's retry.
  let failedChunks = new Set<string>();
  // The chunk URLs that arrived: the page's import after its fetch reads
  // the HTTP cache, and were that off, the network is up for them.
  let passedChunks = new Set<string>();
  // Bodies of the sign-ups whose connection was reset: each carries its own
  // captcha token, so only an engine's resend can repeat one.
  let dropped = new Set<string>();
  const waiting = new Set<(outcome: 'pass') => void>();
  let scriptsHeld: { count: number; released: Promise<void> } | undefined;
  let appPageStubbed = false;
  let releaseScripts = () => {};
  let initScripts: string[] = [];
  let extraHeaders: Record<string, string> = {};

  await proxy
    .forGet(RECAPTCHA_SCRIPT_PATTERN)
    .always()
    .thenCallback((request) => ({
      statusCode: 200,
      headers: { 'content-type': 'text/javascript' },
      body: fakeRecaptchaScript(
        new URL(request.url).searchParams.get('onload') ?? 'onloadcallback',
      ),
    }));
  await proxy
    .forGet(TEST_TAG_URL)
    .always()
    .thenCallback(() => {
      tagRequests += 1;
      return {
        statusCode: 200,
        headers: { 'content-type': 'text/javascript' },
        body: FAKE_TAG_SCRIPT,
      };
    });
  await proxy
    .forAnyRequest()
    .matching((request) => {
      const host = hostOf(request);
      return LOCAL_HOSTS.has(host) || isProductHost(host);
    })
    .always()
    .thenPassThrough({
      // The local servers' certificates are self-signed.
      ignoreHostHttpsErrors: true,
      beforeRequest: async (request) => {
        const headers = { ...request.headers, ...extraHeaders };
        if (initScripts.length > 0) {
          // The page must come whole, with the init script put in.
          delete headers['if-none-match'];
          delete headers['if-modified-since'];
        }
        const exchange: SeenExchange = {
          method: request.method,
          url: request.url,
          headers,
        };
        exchanges.push(exchange);
        unanswered.set(request.id, exchange);
        const changed =
          initScripts.length > 0 || Object.keys(extraHeaders).length > 0;
        const forward: CallbackRequestResult = changed
          ? { headers, ...toThisMachine({ url: request.url, headers }) }
          : toThisMachine(request);
        const url = new URL(request.url);
        if (
          initScripts.length > 0 &&
          request.method === 'GET' &&
          url.pathname === INIT_SCRIPT_PATH
        ) {
          unanswered.delete(request.id);
          return {
            response: {
              statusCode: 200,
              headers: {
                'content-type': 'text/javascript; charset=utf-8',
                'cache-control': 'no-store',
              },
              body: initScripts.join(';\n'),
            },
          };
        }
        if (
          scriptsHeld &&
          request.method === 'GET' &&
          url.pathname.endsWith('.js')
        ) {
          scriptsHeld.count += 1;
          await scriptsHeld.released;
          return forward;
        }
        const chunk = chunkOf(url.pathname);
        if (
          heldChunks &&
          request.method === 'GET' &&
          chunk &&
          !passedChunks.has(request.url)
        ) {
          if (failedChunks.has(request.url)) {
            unanswered.delete(request.id);
            return { response: 'reset' };
          }
          const queue = heldChunks[chunk];
          const outcome = await new Promise<'pass' | 'fail'>((settle) => {
            waiting.add(settle);
            queue.push({
              settle: (value) => {
                waiting.delete(settle);
                settle(value);
              },
            });
          });
          if (outcome === 'pass') {
            passedChunks.add(request.url);
            return forward;
          }
          failedChunks.add(request.url);
          unanswered.delete(request.id);
          return { response: 'reset' };
        }
        if (
          appPageStubbed &&
          request.method === 'GET' &&
          url.pathname === '/'
        ) {
          unanswered.delete(request.id);
          return answer({
            kind: 'response',
            status: 200,
            contentType: 'text/html; charset=utf-8',
            body: '<!doctype html><html lang="en"><title>Vigil</title><main><h1>Signed up</h1></main></html>',
          });
        }
        if (request.method !== 'POST' || url.pathname !== SIGN_UP_PATH) {
          return forward;
        }
        const seen: SeenSignUp = {
          method: request.method,
          headers: request.headers,
          body: (await request.body.getText()) ?? '',
        };
        signUps.push(seen);
        if (dropped.has(seen.body)) return { response: 'reset' };
        if (!held) return forward;
        const queue = held;
        const outcome = await new Promise<'pass' | Reply>((settle) => {
          waiting.add(settle);
          queue.push({
            ...seen,
            settle: (value) => {
              waiting.delete(settle);
              settle(value);
            },
          });
        });
        if (outcome === 'pass') return forward;
        if (outcome.kind !== 'response') dropped.add(seen.body);
        unanswered.delete(request.id);
        return answer(outcome);
      },
      beforeResponse: async (response, request) => {
        const exchange = unanswered.get(request.id);
        unanswered.delete(request.id);
        if (exchange) {
          exchange.response = {
            status: response.statusCode,
            headers: response.headers,
            text: async () => (await response.body.getText()) ?? '',
          };
        }
        const type = String(response.headers['content-type'] ?? '');
        if (initScripts.length === 0 || !type.startsWith('text/html')) {
          return undefined;
        }
        // mockttp encodes the new body as the answer's content-encoding.
        const {
          etag: _etag,
          'last-modified': _modified,
          ...headers
        } = response.headers;
        return {
          statusCode: response.statusCode,
          headers: { ...headers, 'cache-control': 'no-store' },
          body: withInitScript((await response.body.getText()) ?? ''),
        };
      },
    });
  // Nothing else leaves this machine.
  await proxy.forAnyRequest().always().thenCloseConnection();

  return {
    port: proxy.port,
    get signUps() {
      return signUps;
    },
    get exchanges() {
      return exchanges;
    },
    tagRequests: () => tagRequests,
    holdSignUps: () => {
      held = [];
      return held;
    },
    holdChunks: () => {
      failedChunks = new Set();
      passedChunks = new Set();
      heldChunks = {
        submit: [],
        hostRule: [],
        forgetFailures: () => failedChunks.clear(),
      };
      return heldChunks;
    },
    holdPageScripts: () => {
      const held: PromiseWithResolvers<void> = Promise.withResolvers();
      const hold = { count: 0, released: held.promise };
      const release = () => {
        if (scriptsHeld === hold) scriptsHeld = undefined;
        held.resolve();
      };
      scriptsHeld = hold;
      releaseScripts = release;
      return { waiting: () => hold.count, release };
    },
    addInitScript: (source) => {
      initScripts.push(source);
    },
    addRequestHeader: (name, value) => {
      extraHeaders[name.toLowerCase()] = value;
    },
    keepLoginCookies: () => {
      appPageStubbed = true;
    },
    reset: () => {
      appPageStubbed = false;
      initScripts = [];
      extraHeaders = {};
      signUps = [];
      exchanges = [];
      unanswered.clear();
      tagRequests = 0;
      held = undefined;
      heldChunks = undefined;
      failedChunks = new Set();
      passedChunks = new Set();
      releaseScripts();
      dropped = new Set();
      for (const settle of waiting) settle('pass');
      waiting.clear();
    },
    stop: () => proxy.stop(),
  };
}
