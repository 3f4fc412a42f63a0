/**
 * The service's server-rendered pages' HTML (the account pages, the magic
 * links' pages, what `/` shows of the monitor): the document around a page's
 * content, and the escaping of every value put into it. Pure: HTML from
 * values. The features' pages import it from here, so none imports
 * another's page.
 */

/** Where the pages' stylesheet is served (server/stylesheets.ts). */
export const ACCOUNT_STYLESHEET_PATH = '/account.css';

/** Escapes text for HTML content and double-quoted attributes. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * The account pages' document: the product's header and footer around a
 * page's main content.
 *
 * @param title the page's own title (the product's name follows it)
 * @param body the main content, HTML (its values already escaped)
 */
export function layout(
  productName: string,
  title: string,
  body: string,
): string {
  const product = escapeHtml(productName);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="theme-color" media="(prefers-color-scheme: light)" content="#f1f5f9">
<meta name="theme-color" media="(prefers-color-scheme: dark)" content="#0b1120">
<title>${escapeHtml(title)} – ${product}</title>
<link rel="stylesheet" href="${ACCOUNT_STYLESHEET_PATH}">
</head>
<body>
<div class="page">
<header class="page__header"><a class="brand" href="/"><svg class="brand__mark" viewBox="0 0 24 24" aria-hidden="true" focusable="false"><path d="M2 12h4l3-7 4 14 3-7h6"/></svg><span class="brand__name">${product}</span></a></header>
<main class="page__main">
${body}
</main>
<footer class="page__footer"><p>© ${product}. We use your details only to run your account.</p></footer>
</div>
</body>
</html>
`;
}
