/**
 * The local server of `npm start` and the browser tests (docs/contract.md,
 * "Commands"): the built page at `/signup`, a placeholder landing page at `/`,
 * and the local stand-in for the product's `POST /2/account/signup/`, on
 * Fastify. Accounts live in memory for the life of the process. Every
 * response carries the security headers of server/securityHeaders.ts.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import helmet from '@fastify/helmet';
import rateLimit from '@fastify/rate-limit';
import fastifyStatic from '@fastify/static';
import Fastify, { type FastifyError, type FastifyInstance } from 'fastify';
import { SIGN_UP_PATH } from '../src/signUpClient';
import { checkFormContentType, FormBodyError, parseFormBody } from './formBody';
import { SnapshotRateLimitStore } from './rateLimitStore';
import {
  INLINE_HASHES_FILE,
  securityHeaderOptions,
  type InlineHashes,
} from './securityHeaders';
import {
  readSignUp,
  refusal,
  type ApiAnswer,
  type NewAccount,
  type UntrustedBody,
} from './signUpRules';

export interface ServerOptions {
  /** Parcel's output folder with `index.html` and the hashed assets. */
  distDir: string;
  productName: string;
  /** Sign-ups accepted per client IP per 15 minutes (`SIGNUP_RATE_LIMIT`). */
  rateLimit: number;
  /** When set, tokens are verified with Google (`RECAPTCHA_SECRET`). */
  recaptchaSecret?: string;
  logger?: boolean;
  /** Serve over HTTPS with this key and certificate (PEM). */
  https?: { key: Buffer; cert: Buffer };
  /**
   * `TRACKING_TAG_URL` of the build being served: its origin is allowed to
   * run script (Content-Security-Policy). Undefined: no tag.
   */
  trackingTagUrl?: string | undefined;
  /**
   * `API_ORIGIN` of the build being served: the page may send requests
   * there (Content-Security-Policy). Undefined or '': the page's own origin.
   */
  apiOrigin?: string | undefined;
  /**
   * `SENTRY_DSN` of the build being served: the page may send error reports
   * to its host (Content-Security-Policy). Undefined: no reports.
   */
  sentryDsn?: string | undefined;
}

const RATE_LIMIT_WINDOW = '15 minutes';
// A sign-up form is a few hundred bytes; anything near this is abuse.
const BODY_LIMIT_BYTES = 16 * 1024;

/**
 * The hashes of the built page's inline blocks, from the build's
 * {@link INLINE_HASHES_FILE}; none when the folder has no such file (a
 * build without inline blocks).
 */
function readInlineHashes(distDir: string): InlineHashes | undefined {
  const path = join(distDir, INLINE_HASHES_FILE);
  if (!existsSync(path)) return undefined;
  return JSON.parse(readFileSync(path, 'utf8')) as InlineHashes;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

// The landing page's stylesheet is a file of its own: the policy allows no
// inline <style> (server/securityHeaders.ts).
const LANDING_STYLESHEET_PATH = '/landing.css';
const LANDING_STYLESHEET = `body{font:16px/1.5 system-ui,sans-serif;margin:0;display:grid;place-items:center;min-height:100vh;background:#f1f5f9;color:#0f172a}main{max-width:32em;padding:24px}
`;

function landingPage(productName: string): string {
  const product = escapeHtml(productName);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${product}</title>
<link rel="stylesheet" href="${LANDING_STYLESHEET_PATH}">
</head><body><main>
<h1>Welcome to ${product}</h1>
<p>Your account is ready. This page stands in for the ${product} app, which is outside this project.</p>
<p><a href="/signup">Back to sign-up</a></p>
</main></body></html>`;
}

async function verifyCaptcha(secret: string, token: string): Promise<boolean> {
  const response = await fetch(
    'https://www.google.com/recaptcha/api/siteverify',
    {
      method: 'POST',
      body: new URLSearchParams({ secret, response: token }),
      signal: AbortSignal.timeout(10_000),
    },
  );
  const result = (await response.json()) as { success?: unknown };
  return result.success === true;
}

/** An error Fastify, a plugin or a hook raised, as far as the API reads it. */
type RaisedError = Pick<FastifyError, 'statusCode'> | FormBodyError;

/**
 * The API's answer to an error raised before or outside the handler, so that
 * the page decides on `code` (docs/contract.md "HTTP") and never meets a
 * framework's error body.
 *
 * @returns the HTTP status and the answer: 400 `CSAPI_INVALID_PARAMETER`
 *   `body` for a body that is not UTF-8 form encoding, 413
 *   `CSAPI_PAYLOAD_TOO_LARGE`, 415 `CSAPI_UNSUPPORTED_MEDIA_TYPE` for any
 *   other content type, 429 `CSAPI_API_RATE_LIMIT_REACHED`, other client
 *   errors `CSAPI_BAD_REQUEST`, and server faults `CSAPI_INTERNAL_ERROR`
 *   (unknown paths and methods: 404 `CSAPI_NOT_FOUND`, by the not-found
 *   handler)
 */
export function errorAnswer(error: RaisedError): {
  status: number;
  answer: ApiAnswer;
} {
  if (error instanceof FormBodyError) {
    return error.problem === 'media type'
      ? {
          status: 415,
          answer: refusal('CSAPI_UNSUPPORTED_MEDIA_TYPE', 'content-type'),
        }
      : { status: 400, answer: refusal('CSAPI_INVALID_PARAMETER', 'body') };
  }
  const status =
    typeof error.statusCode === 'number' &&
    error.statusCode >= 400 &&
    error.statusCode <= 599
      ? error.statusCode
      : 500;
  switch (status) {
    case 413:
      return { status, answer: refusal('CSAPI_PAYLOAD_TOO_LARGE', 'body') };
    case 415:
      return {
        status,
        answer: refusal('CSAPI_UNSUPPORTED_MEDIA_TYPE', 'content-type'),
      };
    case 429:
      return {
        status,
        answer: refusal('CSAPI_API_RATE_LIMIT_REACHED', 'rate limit'),
      };
    default:
      return status >= 500
        ? { status, answer: refusal('CSAPI_INTERNAL_ERROR', 'server') }
        : { status, answer: refusal('CSAPI_BAD_REQUEST', 'request') };
  }
}

/**
 * Builds the server (not listening yet).
 *
 * @returns a Fastify instance; call `listen({ port })` on it
 * @throws Error when `trackingTagUrl`, `apiOrigin` or `sentryDsn` is not an
 *   http(s) URL
 */
export async function buildServer(
  options: ServerOptions,
): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit: BODY_LIMIT_BYTES,
    ...(options.https && { https: options.https }),
  });
  const accounts = new Map<string, NewAccount>();
  const distDir = resolve(options.distDir);

  // Anything that goes wrong answers in the API's own shape (errorAnswer).
  // Set first: plugin contexts registered later inherit it.
  app.setErrorHandler((error: RaisedError, request, reply) => {
    const { status, answer } = errorAnswer(error);
    if (status >= 500) request.log.error(error);
    return reply.code(status).send(answer);
  });
  // Unknown paths and methods (a GET of the API, a PUT…) too.
  app.setNotFoundHandler((_request, reply) =>
    reply.code(404).send(refusal('CSAPI_NOT_FOUND', 'path')),
  );

  await app.register(
    helmet,
    securityHeaderOptions({
      trackingTagUrl: options.trackingTagUrl,
      apiOrigin: options.apiOrigin,
      sentryDsn: options.sentryDsn,
      inlineHashes: readInlineHashes(distDir),
    }),
  );
  // The plugin's own store miscounts simultaneous requests (see
  // server/rateLimitStore.ts).
  await app.register(rateLimit, {
    global: false,
    store: SnapshotRateLimitStore,
  });
  await app.register(fastifyStatic, {
    root: distDir,
    index: false,
    preCompressed: true,
    wildcard: true,
    // Parcel names every asset by its content hash; only the HTML may change.
    setHeaders(reply, path) {
      reply.header(
        'cache-control',
        // The HTML may come as its precompressed twin (index.html.br/.gz).
        /\.html(?:\.(?:br|gz))?$/.test(path)
          ? 'no-cache'
          : 'public, max-age=31536000, immutable',
      );
    },
  });

  app.get('/signup', (_request, reply) =>
    reply.header('cache-control', 'no-cache').sendFile('index.html'),
  );
  // The browser's own submission of the form (`method="post"`), which the
  // page never makes while its script runs. Its body is never read (nothing
  // typed reaches a log); the visitor is sent back to the page, which says
  // that signing up needs JavaScript.
  await app.register(async (page) => {
    page.removeAllContentTypeParsers();
    page.addContentTypeParser('*', (_request, _payload, done) =>
      done(null, undefined),
    );
    page.post('/signup', (_request, reply) =>
      reply.code(303).header('location', '/signup').send(),
    );
  });
  app.get('/', (_request, reply) =>
    reply
      .type('text/html; charset=utf-8')
      .send(landingPage(options.productName)),
  );
  app.get(LANDING_STYLESHEET_PATH, (_request, reply) =>
    reply
      .type('text/css; charset=utf-8')
      .header('cache-control', 'no-cache')
      .send(LANDING_STYLESHEET),
  );

  // The API in a context of its own: it reads form encoding only
  // (docs/contract.md "HTTP", D40 in docs/decisions.md), so Fastify's JSON
  // and text parsers are removed and one parser takes every content type,
  // refusing all but UTF-8 form encoding (415).
  await app.register(async (api) => {
    api.removeAllContentTypeParsers();
    api.addContentTypeParser(
      '*',
      { parseAs: 'buffer', bodyLimit: BODY_LIMIT_BYTES },
      (request, body, done) => {
        try {
          checkFormContentType(request.headers['content-type']);
          // parseAs 'buffer': the '*' overload's type also allows a string.
          done(null, parseFormBody(body as Buffer));
        } catch (error) {
          done(error as FormBodyError, undefined);
        }
      },
    );

    api.post(
      SIGN_UP_PATH,
      {
        config: {
          rateLimit: {
            max: options.rateLimit,
            timeWindow: RATE_LIMIT_WINDOW,
            // Thrown by the plugin; the error handler writes the answer.
            errorResponseBuilder: (_request, context) =>
              Object.assign(new Error('rate limit reached'), {
                statusCode: context.statusCode,
              }),
          },
        },
      },
      async (request, reply): Promise<ApiAnswer> => {
        const body = request.body;
        if (typeof body !== 'object' || body === null) {
          reply.code(400);
          return refusal('CSAPI_INVALID_PARAMETER', 'body');
        }
        const account = readSignUp(body as UntrustedBody);
        if ('success' in account) {
          reply.code(400);
          return account;
        }
        if (
          options.recaptchaSecret &&
          !(await verifyCaptcha(options.recaptchaSecret, account.captchaToken))
        ) {
          reply.code(400);
          return refusal('CSAPI_CAPTCHA_INVALID', 'g-recaptcha-response');
        }
        const key = account.email.toLowerCase();
        if (accounts.has(key)) {
          reply.code(409);
          return refusal('CSAPI_ACCOUNT_EXISTS', 'email');
        }
        accounts.set(key, account);
        return {
          success: true,
          data: {
            one_time_auth: {
              token: randomBytes(24).toString('base64url'),
              sid: randomUUID(),
            },
          },
        };
      },
    );
  });

  return app;
}
