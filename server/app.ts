/**
 * The local server of `npm start` and the browser tests (CONTRACT.md
 * "Commands"): the built page at `/signup`, a placeholder landing page at `/`,
 * and the local stand-in for the product's `POST /2/account/signup/`, on
 * Fastify. Accounts live in memory for the life of the process.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import formBody from '@fastify/formbody';
import rateLimit from '@fastify/rate-limit';
import fastifyStatic from '@fastify/static';
import Fastify, { type FastifyInstance } from 'fastify';
import { SIGN_UP_PATH } from '../src/signUpClient';
import {
  readSignUp,
  refusal,
  type ApiAnswer,
  type FormBody,
  type NewAccount,
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
}

const RATE_LIMIT_WINDOW = '15 minutes';
// A sign-up form is a few hundred bytes; anything near this is abuse.
const BODY_LIMIT_BYTES = 16 * 1024;

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function landingPage(productName: string): string {
  const product = escapeHtml(productName);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${product}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;margin:0;display:grid;place-items:center;min-height:100vh;background:#f1f5f9;color:#0f172a}main{max-width:32em;padding:24px}</style>
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

/**
 * Builds the server (not listening yet).
 *
 * @returns a Fastify instance; call `listen({ port })` on it
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

  await app.register(formBody, { bodyLimit: BODY_LIMIT_BYTES });
  await app.register(rateLimit, { global: false });
  await app.register(fastifyStatic, {
    root: distDir,
    index: false,
    preCompressed: true,
    wildcard: true,
    // Parcel names every asset by its content hash; only the HTML may change.
    setHeaders(reply, path) {
      reply.header(
        'cache-control',
        path.endsWith('.html')
          ? 'no-cache'
          : 'public, max-age=31536000, immutable',
      );
    },
  });

  app.get('/signup', (_request, reply) =>
    reply.header('cache-control', 'no-cache').sendFile('index.html'),
  );
  app.get('/', (_request, reply) =>
    reply
      .type('text/html; charset=utf-8')
      .send(landingPage(options.productName)),
  );

  app.post(
    SIGN_UP_PATH,
    {
      config: {
        rateLimit: {
          max: options.rateLimit,
          timeWindow: RATE_LIMIT_WINDOW,
          errorResponseBuilder: () => ({
            statusCode: 429,
            ...refusal('CSAPI_API_RATE_LIMIT_REACHED', 'rate limit'),
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
      const account = readSignUp(body as FormBody);
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

  // Anything that goes wrong answers in the API's own shape, so the page
  // decides on `code` and never on a framework's error page.
  app.setErrorHandler(
    (error: { statusCode?: number; code?: string }, request, reply) => {
      const status = error.statusCode ?? 500;
      if (status >= 500) request.log.error(error);
      reply.code(status);
      if (status === 429) return error;
      return refusal(
        status === 413 ? 'CSAPI_PAYLOAD_TOO_LARGE' : 'CSAPI_BAD_REQUEST',
        error.code ?? 'request',
      );
    },
  );

  return app;
}
