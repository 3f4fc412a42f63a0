/**
 * The account pages' forms, as every feature writes them (the sites', the
 * alert channels'): server-rendered, without script, every action a form
 * that posts and is answered with a redirect (post/redirect/get); a
 * refused form comes back (422) with GOV.UK's error summary first
 * (focused on load, each item a link to its field), each field's own
 * message under its hint, and what was typed. Here: those pieces of HTML,
 * the one-card pages (a 404, "confirm first"), and the answers (a page
 * never cached, a magic link's page, a 303, the session's redirect to
 * `/`). A layer under the features: it knows no feature, whose words and paths it is given.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { escapeHtml, layout } from './html';

/** A refused field (its control's id) and what to do about it. */
export interface FieldError<Field extends string = string> {
  field: Field;
  message: string;
}

/** A form page's title: `Error: ` first while the form is refused. */
export function formTitle(
  title: string,
  errors: readonly FieldError[],
): string {
  return errors.length > 0 ? `Error: ${title}` : title;
}

/**
 * GOV.UK's error summary, before the form's heading: focused on load,
 * each message a link to its field; empty when nothing was refused.
 *
 * @returns HTML with `error-summary` (docs/contract.md), or ''
 */
export function errorSummary(errors: readonly FieldError[]): string {
  if (errors.length === 0) return '';
  return `<div class="error-summary" role="alert" aria-labelledby="error-summary-title" tabindex="-1" autofocus data-testid="error-summary">
<h2 id="error-summary-title" class="error-summary__title">There is a problem</h2>
<ul class="error-summary__list">
${errors.map((error) => `<li><a href="#${error.field}">${escapeHtml(error.message)}</a></li>`).join('\n')}
</ul>
</div>
`;
}

/** What a field's control and its message need, for its refusal or none. */
export interface FieldParts {
  /** The field's refusal, if any. */
  error: FieldError | undefined;
  /** `{name}-hint`, then `{name}-error` when refused. */
  describedBy: string;
  /** The control's `aria-describedby` (and `aria-invalid` when refused), with its leading space. */
  aria: string;
  /** The refusal's message, a paragraph and a line break; '' when none. */
  message: string;
}

/**
 * A field's parts: its hint's and message's ids on its control, and its
 * message.
 *
 * @param name the field's control's id (the error summary links to it)
 */
export function fieldParts(
  name: string,
  errors: readonly FieldError[],
): FieldParts {
  const error = errors.find((one) => one.field === name);
  const describedBy = [
    `${name}-hint`,
    ...(error ? [`${name}-error`] : []),
  ].join(' ');
  return {
    error,
    describedBy,
    aria: ` aria-describedby="${describedBy}"${error ? ' aria-invalid="true"' : ''}`,
    message: error
      ? `<p id="${name}-error" class="field__error"><span class="visually-hidden">Error: </span>${escapeHtml(error.message)}</p>\n`
      : '',
  };
}

/** One labelled field of a form. */
export interface FormField {
  /** Its control's id. */
  name: string;
  /** Its label (HTML, escaped). */
  label: string;
  /** Its hint (HTML, escaped). */
  hint: string;
  /** Its control, given the attributes that describe it. */
  control: (aria: string) => string;
}

/**
 * A field: its label, its hint, its message when refused, and its control
 * described by both.
 */
export function formField(
  field: FormField,
  errors: readonly FieldError[],
): string {
  const parts = fieldParts(field.name, errors);
  return `<div class="field${parts.error ? ' field--error' : ''}">
<label class="field__label" for="${field.name}">${field.label}</label>
<p id="${field.name}-hint" class="field__hint">${field.hint}</p>
${parts.message}${field.control(parts.aria)}
</div>`;
}

/** A page of one card: a heading, a paragraph and a link. */
export interface CardPage {
  /** The document's title. */
  title: string;
  /** The heading's id (the card is labelled by it). */
  headingId: string;
  /** The card's test selector (docs/contract.md). */
  testId: string;
  heading: string;
  /** The paragraph (HTML, escaped). */
  text: string;
  /** The link under it. */
  back: { href: string; words: string };
}

/**
 * A page of one card: what a page of a thing the account does not have
 * answers (404), or why an action waits ("confirm your address first").
 */
export function cardPage(productName: string, card: CardPage): string {
  return layout(
    productName,
    card.title,
    `<section class="card" aria-labelledby="${card.headingId}" data-testid="${card.testId}">
<h1 id="${card.headingId}" class="card__title">${escapeHtml(card.heading)}</h1>
<p>${card.text}</p>
<p class="card__aside"><a href="${card.back.href}">${escapeHtml(card.back.words)}</a></p>
</section>`,
  );
}

/** Answers a page: personal data, never stored by a cache. */
export function sendPage(reply: FastifyReply, status: number, html: string) {
  return reply
    .code(status)
    .header('cache-control', 'no-store')
    .type('text/html; charset=utf-8')
    .send(html);
}

/**
 * Answers a page a magic link opens: besides `no-store`, its token never
 * leaks by `Referer`, nor is it indexed.
 */
export function sendLinkPage(
  reply: FastifyReply,
  status: number,
  html: string,
) {
  return sendPage(
    reply
      .header('referrer-policy', 'no-referrer')
      .header('x-robots-tag', 'noindex'),
    status,
    html,
  );
}

/** Answers `303 See Other` to `location` (post/redirect/get). */
export function seeOther(reply: FastifyReply, location: string) {
  return reply.code(303).header('location', location).send();
}

/**
 * The session's account of a page or form that needs one: given how the
 * service finds the signed-in account, a function that returns it, or,
 * having answered 303 to `/` (which signs in), null.
 */
export function signedInOrHome<Account>(
  signedIn: (request: FastifyRequest) => Promise<Account | null>,
) {
  return async (
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<Account | null> => {
    const account = await signedIn(request);
    if (!account) await seeOther(reply, '/');
    return account;
  };
}
