/**
 * The first sign-in's page at `/` (docs/contract.md "HTTP"; ADR-0045 to
 * ADR-0046): small, rendered on the server, in the sign-up page's
 * visual language (its stylesheet is `ACCOUNT_STYLESHEET_PATH`, a file of
 * its own because the Content-Security-Policy allows no inline style). It
 * stands in for the product's app, whose monitoring is outside this
 * project, but it is a real signed-in page. Pure: HTML from values.
 */
import type { AccountView } from './accounts';
import { escapeHtml, layout } from '../http/html';

/** Where the sign-out form posts. */
export const SIGN_OUT_PATH = '/sign-out';
/** Where "Sign out everywhere" posts: every session of the account ends (ADR-0112). */
export const SIGN_OUT_EVERYWHERE_PATH = '/sign-out-everywhere';
/** Sign-in by e-mail: its form's page, where the form posts (ADR-0097). */
export const SIGN_IN_PATH = '/signin';
/** Where "Send the link again" posts (ADR-0097). */
export const RESEND_PATH = '/resend-confirmation';

/** What `/` shows; each kind has its own test selector (docs/contract.md). */
/** What another feature shows on `/` of a signed-in account. */
export interface AccountPageSection {
  /** A section of the card, after the account's details. */
  section: string;
  /**
   * The first item of "What happens next" (first sign-in only); absent:
   * this feature gives none (only the sites' part gives one).
   */
  firstStep?: string | undefined;
}

/**
 * What `/` asks of each feature that shows a part of the account (the
 * sites, server/monitor/; where the alerts go, server/alerts/), in the
 * order the features registered.
 *
 * @param query the request's query (`?check=`), undefined on the first
 *   sign-in
 * @returns null when it has nothing to show for the account
 */
export type AccountPageParts = (
  accountId: string,
  query: unknown,
) => Promise<AccountPageSection | null>;

export type AccountPageView =
  | {
      kind: 'signedIn';
      account: AccountView;
      /** `{product}_WELCOME_MESSAGE=1` was set: welcome, once (ADR-0046). */
      welcome: boolean;
      /** This visit is the account's first sign-in (ADR-0046). */
      firstSignIn: boolean;
      /**
       * The answer to "Send the link again" (`/?resent=`): `sent`, or
       * `limited` when the address had a mail in the last minute, or its 10 for
       * the day (ADR-0097).
       */
      resent?: 'sent' | 'limited' | undefined;
      /**
       * The other features' sections, in order (the sites, then where the
       * alerts go), and the first step of "What happens next" (the
       * sites'); null or absent when no feature shows anything.
       */
      monitor?: AccountPageSection | null;
    }
  | { kind: 'refused' }
  | { kind: 'signedOut' }
  | { kind: 'unavailable' };

/** A day as the pages write it: `5 December 2026` (UTC). */
function dayOf(date: Date): string {
  return date.toLocaleDateString('en-GB', {
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    timeZone: 'UTC',
  });
}

/** What `/?resent=` says under the unconfirmed notice. */
function resentNote(resent: 'sent' | 'limited' | undefined): string {
  if (resent === undefined) return '';
  const text =
    resent === 'sent'
      ? 'We have sent the link again. It can take a minute to arrive.'
      : 'A link was sent to this address less than a minute ago, or it has had its 10 links for today. Please look in your spam folder, and wait a minute before asking again.';
  return `<p class="message__note" data-testid="confirmation-resent">${text}</p>
`;
}

function signedIn(
  productName: string,
  view: Extract<AccountPageView, { kind: 'signedIn' }>,
): string {
  const { account } = view;
  const product = escapeHtml(productName);
  const site = account.siteUrl ? escapeHtml(account.siteUrl) : undefined;
  const welcome = view.welcome
    ? `<div class="message message--success" role="status" data-testid="welcome-message">
<h2 class="message__title">Welcome to ${product}, ${escapeHtml(account.name)}</h2>
<p>${
        site
          ? `We are now watching <strong class="account__site">${site}</strong>. `
          : ''
      }We will email ${escapeHtml(account.email)} the moment it stops answering${
        account.confirmed ? '' : ', once you have confirmed the address'
      }.</p>
</div>
`
    : '';
  const nextSteps = view.firstSignIn
    ? `<section class="next-steps" aria-labelledby="next-steps-title" data-testid="first-signin">
<h2 id="next-steps-title" class="next-steps__title">What happens next</h2>
<ol class="next-steps__list">
<li data-testid="first-check">${view.monitor?.firstStep ?? 'Your site’s first check runs within a minute, then every minute, around the clock.'}</li>
<li>When it stops answering, we email you, and again when it is back.</li>
<li>Add more sites, name them and choose how often each is checked, under “Your sites”.</li>
</ol>
</section>
`
    : '';
  const unconfirmed = account.confirmed
    ? ''
    : `<div class="message message--notice" role="status" data-testid="address-unconfirmed">
<h2 class="message__title">Confirm your email address</h2>
<p>We sent a link to <strong class="account__email">${escapeHtml(account.email)}</strong>. Open it to confirm that our alerts reach you.${
        account.deletedUnconfirmedAt
          ? ` Unless it is confirmed by ${escapeHtml(dayOf(account.deletedUnconfirmedAt))}, this account will be deleted.`
          : ''
      }</p>
${resentNote(view.resent)}<form method="post" action="${RESEND_PATH}" class="message__action">
<button type="submit" class="button button--secondary" data-testid="resend-confirmation">Send the link again</button>
</form>
</div>
`;
  return layout(
    productName,
    'Your account',
    `<section class="card" aria-labelledby="account-title">
${welcome}<h1 id="account-title" class="card__title">Your account</h1>
${unconfirmed}<dl class="account">
<div class="account__row"><dt>Name</dt><dd data-testid="account-name">${escapeHtml(account.name)}</dd></div>
<div class="account__row"><dt>Email address</dt><dd data-testid="account-email">${escapeHtml(account.email)}</dd></div>
</dl>
${view.monitor?.section ?? ''}${nextSteps}<div class="sign-out">
<form method="post" action="${SIGN_OUT_PATH}">
<button type="submit" class="button button--secondary" data-testid="sign-out">Sign out</button>
</form>
<form method="post" action="${SIGN_OUT_EVERYWHERE_PATH}">
<button type="submit" class="button button--secondary" data-testid="sign-out-everywhere" aria-describedby="sign-out-everywhere-note">Sign out everywhere</button>
</form>
<p id="sign-out-everywhere-note" class="sign-out__note">Signs this account out in every browser, this one included.</p>
</div>
</section>`,
  );
}

/**
 * The page `/` sends.
 *
 * @param productName `PRODUCT_NAME`, shown in the header and the texts
 * @param view what to show: the account (with the welcome and first
 *   sign-in notes when due), a refused sign-in, signed out, or the
 *   database being unavailable
 * @returns the whole HTML document
 */
export function accountPage(
  productName: string,
  view: AccountPageView,
): string {
  const product = escapeHtml(productName);
  switch (view.kind) {
    case 'signedIn':
      return signedIn(productName, view);
    case 'refused':
      return layout(
        productName,
        'Sign-in not possible',
        `<section class="card" aria-labelledby="refused-title" data-testid="signin-refused">
<h1 id="refused-title" class="card__title">We could not sign you in</h1>
<p>The sign-in that follows creating an account works once, within 10 minutes. This one has already been used, has expired, or is not valid, so it signs nobody in.</p>
<p>If you have an account, <a href="${SIGN_IN_PATH}">sign in with a link by email</a>.</p>
<p>If you have not created your account yet, <a href="/signup">create your ${product} account</a>.</p>
</section>`,
      );
    case 'signedOut':
      return layout(
        productName,
        'Signed out',
        `<section class="card" aria-labelledby="signed-out-title" data-testid="signed-out">
<h1 id="signed-out-title" class="card__title">You are not signed in</h1>
<p>This is where your ${product} account opens once you are signed in.</p>
<p><a href="${SIGN_IN_PATH}">Sign in</a></p>
<p>No account yet? <a href="/signup">Create your ${product} account</a></p>
</section>`,
      );
    case 'unavailable':
      return layout(
        productName,
        'Try again in a moment',
        `<section class="card" aria-labelledby="unavailable-title" data-testid="signin-unavailable">
<h1 id="unavailable-title" class="card__title">We cannot open your account right now</h1>
<p>Something went wrong on our side. Nothing is lost: reload this page in a moment to try again.</p>
</section>`,
      );
  }
}
