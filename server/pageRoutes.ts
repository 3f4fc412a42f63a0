/**
 * The sign-up page's routes: the built page at `/signup` (and the browser's
 * own `POST /signup`) and its hashed assets. `/` is the first sign-in
 * (server/signInRoutes.ts).
 */
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

/**
 * Registers the page's routes on `app`.
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
}
