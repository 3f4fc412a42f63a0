/**
 * The sign-up page's routes: the built page at `/signup` (its copy marked
 * for Global Privacy Control when the request sends `Sec-GPC: 1`; and the
 * browser's own `POST /signup`) and its hashed assets. `/` is the first sign-in
 * (server/accounts/signInRoutes.ts).
 */
import fastifyStatic from '@fastify/static';
import fastifyPlugin from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';

/**
 * The built page's copy for a request that carries `Sec-GPC: 1`: the same
 * page with `data-gpc` on `<html>` (scripts/build.ts writes it beside
 * index.html), so a browser that sends the header without
 * `navigator.globalPrivacyControl` is honoured too (ADR-0074).
 */
export const GPC_PAGE_FILE = 'index-gpc.html';

/**
 * Whether a request sends Global Privacy Control: `Sec-GPC: 1` (GPC
 * specification, "the Sec-GPC header field": the value is `1`, anything
 * else means no signal).
 */
function sendsGpcHeader(
  headers: Record<string, string | string[] | undefined>,
): boolean {
  return headers['sec-gpc'] === '1';
}

/**
 * Registers the page's routes on `app`: the built page at `/signup`, its
 * assets, and the answer to a form posted without the page's script.
 *
 * @param distDir the built page's folder (absolute)
 */
export async function registerPageRoutes(
  app: FastifyInstance,
  { distDir }: { distDir: string },
): Promise<void> {
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

  // ADR-0074: the page a GPC request gets is marked so; caches keep one copy
  // per value of the header.
  // ADR-0117: the sign-up page's document is sent without
  // Cross-Origin-Opener-Policy (every other answer has it): in a new tab, the
  // header's new browsing context group costs the first paint about 70 ms,
  // and this public page holds nothing an opener could use.
  app.get(
    '/signup',
    { config: { crossOriginOpenerPolicy: false } },
    (request, reply) =>
      reply
        .header('cache-control', 'no-cache')
        .header('vary', 'Sec-GPC')
        .sendFile(
          sendsGpcHeader(request.headers) ? GPC_PAGE_FILE : 'index.html',
        ),
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
}

/** {@link registerPageRoutes} as a plugin of the service's own context. */
export const pageRoutesPlugin = fastifyPlugin(registerPageRoutes, {
  name: 'page',
});
