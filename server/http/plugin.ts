/**
 * What every request meets, as a Fastify plugin registered before anything
 * else: the API's error answers (./errorAnswer.ts), set first so that
 * every context registered later inherits them, then the hooks in the
 * order they run: the security headers (./securityHeaders.ts), the host
 * rule (./hostCheck.ts) and the cross-origin rule (./crossOrigin.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import fastifyPlugin from 'fastify-plugin';
import { API_CODES } from '../../contract/apiCodes';
import { refuseCrossOrigin } from './crossOrigin';
import { errorAnswer, refusal, type RaisedError } from './errorAnswer';
import { refuseOtherHosts } from './hostCheck';
import {
  INLINE_HASHES_FILE,
  securityHeadersHook,
  type InlineHashes,
} from './securityHeaders';

/** What the hooks need to know of the service. */
export interface HttpPluginOptions {
  /** The built page's folder (absolute), whose inline blocks are hashed. */
  distDir: string;
  /** `PUBLIC_URL`: the one host served (ADR-0109). */
  publicUrl: string;
  /** `TRACKING_TAG_URL`: its origin may run script. */
  trackingTagUrl?: string | undefined;
  /** `SENTRY_DSN`: the page may send error reports to its host. */
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

async function http(
  app: FastifyInstance,
  options: HttpPluginOptions,
): Promise<void> {
  // Anything that goes wrong answers in the API's own shape (errorAnswer).
  app.setErrorHandler((error: RaisedError, request, reply) => {
    const { status, answer } = errorAnswer(error);
    if (status >= 500) request.log.error(error);
    return reply.code(status).send(answer);
  });
  // Unknown paths and methods (a GET of the API, a PUT…) too.
  app.setNotFoundHandler((_request, reply) =>
    reply.code(404).send(refusal(API_CODES.notFound, 'path')),
  );

  app.addHook(
    'onRequest',
    securityHeadersHook({
      trackingTagUrl: options.trackingTagUrl,
      sentryDsn: options.sentryDsn,
      inlineHashes: readInlineHashes(options.distDir),
    }),
  );
  // After the headers (every answer carries them), before any route's own
  // hooks (the rate limit) and before any body is read: only PUBLIC_URL's
  // host is served (ADR-0109), and only forms of its own pages (ADR-0088).
  app.addHook('onRequest', refuseOtherHosts(options.publicUrl));
  app.addHook('onRequest', refuseCrossOrigin);
}

/** The error answers and the hooks every request meets (see the module comment). */
export const httpPlugin = fastifyPlugin(http, { name: 'http' });
