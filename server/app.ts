/**
 * The local server of `npm start` and the browser tests (docs/contract.md,
 * "Commands"), on Fastify: the page (server/pageRoutes.ts) and the local
 * sign-up API (server/signUpApi.ts), every response with the security
 * headers of server/securityHeaders.ts and every error in the API's shape
 * (server/errorAnswer.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import helmet from '@fastify/helmet';
import rateLimit from '@fastify/rate-limit';
import Fastify, { type FastifyInstance } from 'fastify';
import { errorAnswer, type RaisedError } from './errorAnswer';
import { registerPageRoutes } from './pageRoutes';
import { SnapshotRateLimitStore } from './rateLimitStore';
import {
  INLINE_HASHES_FILE,
  securityHeaderOptions,
  type InlineHashes,
} from './securityHeaders';
import { BODY_LIMIT_BYTES, registerSignUpApi } from './signUpApi';
import { refusal } from './signUpRules';

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
  await registerPageRoutes(app, {
    distDir,
    productName: options.productName,
  });
  await registerSignUpApi(app, {
    rateLimit: options.rateLimit,
    ...(options.recaptchaSecret && {
      recaptchaSecret: options.recaptchaSecret,
    }),
  });
  return app;
}
