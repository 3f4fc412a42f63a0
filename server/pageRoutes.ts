/**
 * The page's routes: the built page at `/signup` (and the browser's own
 * `POST /signup`), its hashed assets, and a placeholder landing page at `/`
 * standing in for the product's app (D7 in docs/decisions.md).
 */
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

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

/**
 * Registers the page's routes on `app`.
 *
 * @param distDir the built page's folder (absolute)
 * @param productName the name the landing page shows
 */
export async function registerPageRoutes(
  app: FastifyInstance,
  { distDir, productName }: { distDir: string; productName: string },
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
  app.get('/', (_request, reply) =>
    reply.type('text/html; charset=utf-8').send(landingPage(productName)),
  );
  app.get(LANDING_STYLESHEET_PATH, (_request, reply) =>
    reply
      .type('text/css; charset=utf-8')
      .header('cache-control', 'no-cache')
      .send(LANDING_STYLESHEET),
  );
}
