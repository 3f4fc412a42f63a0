/**
 * The two transactional mails: the address confirmation after a sign-up,
 * and the sign-in link, each with one link, to the continue page. Their
 * words; the outbox lays them out (server/outbox/channels/email.ts). Pure:
 * mails from values.
 */
import type { Notice } from '../../outbox/index';
import type { MailKind } from '../tables';

export type { MailKind };

/**
 * How long a magic link works (ADR-0096): as an SQL interval (./linkMails.ts
 * stores it so) and in the mail's words.
 */
export const LINK_LIFETIMES: Readonly<
  Record<MailKind, { sql: string; words: string }>
> = {
  confirm: { sql: '24 hours', words: '24 hours' },
  signin: { sql: '15 minutes', words: '15 minutes' },
};

/** Where a magic link leads: the continue page. */
export const LINK_PATH = '/link';

/**
 * The address a mail's link opens.
 *
 * @param publicUrl `PUBLIC_URL`, an origin without a trailing slash, e.g.
 *   `https://vigil.example`
 * @param token the link's token, base64url (RFC 4648 §5), so it needs no
 *   percent-encoding
 * @returns `${publicUrl}/link?token=${token}`. The token sits in the query
 *   because the request logs drop the query.
 */
export function linkUrl(publicUrl: string, token: string): string {
  return `${publicUrl}${LINK_PATH}?token=${token}`;
}

/**
 * What a link mail's words are made from; the outbox addresses it (its
 * From, To and Message-ID).
 */
export interface LinkNoticeInput {
  kind: MailKind;
  /** `PRODUCT_NAME`, e.g. "Vigil". */
  productName: string;
  /** `PUBLIC_URL`: an origin without a trailing slash. */
  publicUrl: string;
  /**
   * The account holder's name, or null while the address is unconfirmed:
   * the mail then greets no one by name ({@link greeting}).
   */
  name: string | null;
  /** Confirm mails only: the visitor asked for the newsletter. */
  newsletter: boolean;
  /**
   * Confirm mails only: the host of the site the account watches, or null
   * (none, or not readable as a URL): the mail names the host alone, never
   * a path, so that it shows whose sign-up it is without carrying a link
   * of the sign-up's choosing (ADR-0123).
   */
  siteHost?: string | null;
  /** base64url, 43 characters. */
  token: string;
}

/** The words of one mail, before they become text and HTML. */
interface Wording {
  subject: string;
  /** Why the mail came. */
  reason: string;
  button: string;
  /** After the link: the expiry and, when due, the newsletter. */
  notes: string[];
  /** Why the mail came, at its end, in softer ink. */
  footnote: string;
}

const IGNORE_NOTE =
  'If this was not you, ignore this mail: nothing happens unless you press the button on the page the link opens.';

function wording(input: LinkNoticeInput): Wording {
  const product = input.productName;
  const expiry = `The link works once, within ${LINK_LIFETIMES[input.kind].words}.`;
  if (input.kind === 'confirm') {
    return {
      footnote: IGNORE_NOTE,
      subject: `Confirm your email address for ${product}`,
      reason: input.siteHost
        ? `You created a ${product} account with this email address, to watch ${input.siteHost}. Confirm the address so that we check the site every minute and send its alerts to you.`
        : `You created a ${product} account with this email address. Confirm the address so that your alerts can be sent to it.`,
      button: 'Confirm your address',
      notes: input.newsletter
        ? [expiry, 'Confirming also starts the newsletter you asked for.']
        : [expiry],
    };
  }
  return {
    footnote: IGNORE_NOTE,
    subject: `Your ${product} sign-in link`,
    reason: `Someone asked to sign in to the ${product} account of this email address.`,
    button: `Sign in to ${product}`,
    notes: [expiry],
  };
}

/**
 * A transactional mail's words as a notice, for the outbox's mail layout
 * (server/outbox/channels/email.ts): the reason, the button to the link
 * ({@link linkUrl}), the notes (the link's lifetime, {@link LINK_LIFETIMES}),
 * the footnote. Raises nothing.
 *
 * @param input the mail's kind, the product, the recipient's name (null
 *   while the address is unconfirmed: no name in the mail), the
 *   newsletter choice and the watched site (confirm mails only), the
 *   link's token
 */
export function linkNotice(input: LinkNoticeInput): Notice {
  const words = wording(input);
  return {
    subject: words.subject,
    paragraphs: [words.reason, ...words.notes],
    link: { label: words.button, url: linkUrl(input.publicUrl, input.token) },
    urgency: 'default',
    tags: [],
    webhook: null,
    mail: { greetingName: input.name, footer: words.footnote },
  };
}

/**
 * The host of a watched site's URL (`shop.example`, `site.test:8080`), as
 * the WHATWG URL parser reads it, for the confirmation mail and its
 * continue page (ADR-0123).
 *
 * @returns null when the URL cannot be read: nothing of it is shown
 */
export function watchedHost(siteUrl: string | null): string | null {
  if (siteUrl === null) return null;
  return URL.parse(siteUrl)?.host || null;
}
