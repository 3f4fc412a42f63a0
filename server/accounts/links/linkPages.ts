/**
 * The pages of sign-in by e-mail and of magic links (docs/contract.md
 * "HTTP"; ADR-0096, ADR-0097): `/signin`, the page a sign-in
 * request answers with, the continue page a magic link opens, and what a
 * used, expired or forged link shows. Server-rendered in the account page's
 * layout and stylesheet, and usable without JavaScript. Pure: HTML from
 * values.
 */
import { SIGN_IN_PATH } from '../accountPage';
import { escapeHtml, layout } from '../../http/html';
import { LINK_LIFETIMES, LINK_PATH } from '../linkMails/linkMessages';
import type { MailKind } from '../tables';

/**
 * `/signin`: one field, the address, and a button that asks for a link.
 *
 * @param problem the message to show beside the field when the address
 *   sent could not be one (the form is then shown with it, 400)
 * @param email the address to put back in the field
 */
export function signInPage(
  productName: string,
  problem?: { message: string; email: string },
): string {
  const product = escapeHtml(productName);
  const invalid = problem !== undefined;
  return layout(
    productName,
    'Sign in',
    `<section class="card" aria-labelledby="signin-title">
<h1 id="signin-title" class="card__title">Sign in to ${product}</h1>
<p>Enter the email address of your account. We will email you a link that signs you in: no password needed.</p>
<form method="post" action="${SIGN_IN_PATH}" class="form" data-testid="signin-form" novalidate>
<div class="field${invalid ? ' field--error' : ''}">
<label class="field__label" for="email">Email address</label>
<input class="field__input" id="email" name="email" type="email" autocomplete="email" spellcheck="false" required${
      invalid
        ? ` value="${escapeHtml(problem.email)}" aria-invalid="true" aria-describedby="email-error" autofocus`
        : ''
    }>
${invalid ? `<p id="email-error" class="field__error">${escapeHtml(problem.message)}</p>\n` : ''}</div>
<button type="submit" class="button">Email me a sign-in link</button>
</form>
<p class="card__aside">No account yet? <a href="/signup">Create your ${product} account</a></p>
</section>`,
  );
}

/**
 * What every sign-in request is answered with (ADR-0097): the same words
 * whether or not an account has the address, and whether or not it was
 * over its limit; it never repeats the address.
 */
export function signInSentPage(productName: string): string {
  return layout(
    productName,
    'Check your email',
    `<section class="card" aria-labelledby="sent-title" data-testid="signin-sent">
<h1 id="sent-title" class="card__title">Check your email</h1>
<p>If an account uses that address, we have sent it a sign-in link. The link works once, within ${LINK_LIFETIMES.signin.words}.</p>
<p>Nothing there after a few minutes? Look in your spam folder, check the address you typed, or <a href="${SIGN_IN_PATH}">ask for a new link</a>.</p>
</section>`,
  );
}

/**
 * An address as the continue page names it (ADR-0112): the first character of
 * its local part, three dots, and its domain (`j•••@example.com`), so that
 * its owner recognises it and a passer-by learns little.
 *
 * @param email an address with one `@` or more (the last one splits)
 */
export function maskedAddress(email: string): string {
  const at = email.lastIndexOf('@');
  const local = at < 0 ? email : email.slice(0, at);
  const domain = at < 0 ? '' : email.slice(at);
  return `${Array.from(local)[0] ?? ''}•••${domain}`;
}

/**
 * The page a magic link opens (ADR-0096): it changes nothing itself, and holds
 * one form whose POST confirms the address or signs in, once. Mail
 * scanners that fetch every link therefore spend nothing. It names the
 * account's address, masked, so that a link someone else planted shows
 * (ADR-0112).
 *
 * @param purpose what the link was mailed for
 * @param token the link's token, sent back by the form
 * @param email the address of the link's account
 * @param siteHost a confirmation's watched site, its host alone
 *   (ADR-0123); null for none
 */
export function linkContinuePage(
  productName: string,
  purpose: MailKind,
  token: string,
  email: string,
  siteHost: string | null = null,
): string {
  const product = escapeHtml(productName);
  const address = `<strong class="account__email" data-testid="link-address">${escapeHtml(maskedAddress(email))}</strong>`;
  const words =
    purpose === 'confirm'
      ? {
          title: 'Confirm your email address',
          text: siteHost
            ? `Press the button to confirm ${address} for your ${product} account, which watches <strong data-testid="link-site">${escapeHtml(siteHost)}</strong>. We will check it every minute and send its alerts to this address.`
            : `Press the button to confirm ${address} for your ${product} account. We will send your alerts to it.`,
          button: 'Confirm my address',
        }
      : {
          title: `Sign in to ${product}`,
          text: `Press the button to sign in to the ${product} account of ${address} in this browser.`,
          button: 'Sign me in',
        };
  return layout(
    productName,
    words.title,
    `<section class="card" aria-labelledby="link-title">
<h1 id="link-title" class="card__title">${words.title}</h1>
<p>${words.text}</p>
<form method="post" action="${LINK_PATH}" class="form">
<input type="hidden" name="token" value="${escapeHtml(token)}">
<button type="submit" class="button" data-testid="link-continue">${words.button}</button>
</form>
<p class="card__aside">This step is here because some mail services open every link in a mail to check it; only your press counts. Not your address? Close this page: nothing changes.</p>
</section>`,
  );
}

/** A used, expired or forged link (410): no account, and a way forward. */
export function linkRefusedPage(productName: string): string {
  const product = escapeHtml(productName);
  return layout(
    productName,
    'Link no longer works',
    `<section class="card" aria-labelledby="refused-link-title" data-testid="link-refused">
<h1 id="refused-link-title" class="card__title">This link no longer works</h1>
<p>It has been used, has expired, or is not valid. A link works once: a sign-in link within ${LINK_LIFETIMES.signin.words}, a confirmation link within ${LINK_LIFETIMES.confirm.words}.</p>
<p><a href="${SIGN_IN_PATH}">Get a new sign-in link</a>. Signing in also confirms your address.</p>
<p>No account yet? <a href="/signup">Create your ${product} account</a></p>
</section>`,
  );
}

/**
 * A confirmation posted from a browser that is not signed in to the
 * account: the address is confirmed, and signing in is the next step.
 */
export function addressConfirmedPage(productName: string): string {
  return layout(
    productName,
    'Address confirmed',
    `<section class="card" aria-labelledby="confirmed-title" data-testid="link-confirmed">
<h1 id="confirmed-title" class="card__title">Your address is confirmed</h1>
<p>Thank you. Your alerts will go to this address.</p>
<p><a href="${SIGN_IN_PATH}">Sign in to continue</a></p>
</section>`,
  );
}

/**
 * The answer to a form the pages could not take.
 *
 * @param status 403 (posted from another site's page), 503 (the database
 *   cannot answer) or another 4xx/5xx
 */
export function formErrorPage(productName: string, status: number): string {
  const words =
    status === 403
      ? {
          title: 'This form came from another site',
          text: 'For your safety we only accept it from our own pages. Nothing was changed.',
        }
      : status >= 500
        ? {
            title: 'Try again in a moment',
            text: 'Something went wrong on our side, and nothing was changed. Go back and send it again in a moment.',
          }
        : {
            title: 'We could not read that form',
            text: 'Nothing was changed. Go back and send it again.',
          };
  return layout(
    productName,
    words.title,
    `<section class="card" aria-labelledby="form-error-title" data-testid="form-error">
<h1 id="form-error-title" class="card__title">${words.title}</h1>
<p>${words.text}</p>
<p><a href="${SIGN_IN_PATH}">Sign in</a> · <a href="/">Your account</a></p>
</section>`,
  );
}
