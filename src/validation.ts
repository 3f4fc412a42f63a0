/**
 * The client-side rules of the sign-up form (spec section 5, DECISIONS.md
 * "Product"), as pure functions over plain values. The machine's
 * `validating` state calls {@link validateSignUp}; the prefill and the local
 * API reuse the e-mail and site-URL rules.
 */
import { boolean, object, string, ValidationError } from 'yup';

/** The fields that can carry an error message; `captcha` is the captcha notice. */
export type ErrorField = 'name' | 'email' | 'url' | 'tos' | 'captcha';

/** Field → the first message of the first rule it breaks. */
export type FieldErrors = Partial<Record<ErrorField, string>>;

/** What {@link validateSignUp} looks at: the form as typed, plus the captcha token. */
export interface FormToValidate {
  name: string;
  email: string;
  url: string;
  tos: boolean;
  captchaToken: string | null;
}

/**
 * Every message the visitor can read about a field, in the GOV.UK Design
 * System's manner: say what to do, not what went wrong.
 */
export const messages = {
  nameRequired: 'Enter your name',
  nameRefused:
    'Enter your name as plain text, up to 100 characters, without web addresses or HTML',
  emailRequired: 'Enter your email address',
  emailInvalid:
    'Enter an email address in the correct format, like name@example.com',
  urlRequired: 'Enter the address of the website to monitor, like example.com',
  urlInvalid: 'Enter a website address in the correct format, like example.com',
  urlProtocol: 'Enter a website address that starts with http:// or https://',
  urlLocal:
    'Enter the public address of your website, like example.com – localhost cannot be reached from the internet',
  urlIp:
    'Enter the domain name of your website, like example.com, not an IP address',
  urlCredentials:
    'Enter the website address without a user name or password, like example.com',
  tosRequired: 'Agree to the terms of service to create your account',
  captchaRequired: 'Tick “I’m not a robot” to show you are a person',
} as const;

// HTML Living Standard, 4.10.5.1.5 "E-mail state": a valid e-mail address.
const HTML_EMAIL =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;

/**
 * Whether `raw`, trimmed, is a valid e-mail address as the HTML standard
 * defines it (what `<input type=email>` accepts) with at least one dot in
 * the domain (DECISIONS.md: `name@localhost` cannot receive our mail).
 */
export function isValidEmail(raw: string): boolean {
  const email = raw.trim();
  return (
    HTML_EMAIL.test(email) && email.slice(email.indexOf('@')).includes('.')
  );
}

/** Why a site URL is refused; each has its own message. */
export type SiteUrlProblem =
  'empty' | 'format' | 'protocol' | 'local' | 'ip' | 'credentials';

export type SiteUrlCheck =
  { ok: true; url: string } | { ok: false; problem: SiteUrlProblem };

// RFC 3986 section 3.1: scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )
// and ":". A scheme followed by "//" is a protocol. Without "//", "user:pass@
// example.com" and "example.com:8080" are a host without one, so only the
// well-known schemes that never take "//" count ("mailto:", "javascript:").
const HAS_PROTOCOL =
  /^(?:[a-z][a-z\d+.-]*:\/\/|(?:about|blob|data|file|javascript|mailto|sms|tel|urn|vbscript|view-source):)/i;
// RFC 1123 section 2.1 / RFC 5890: letters, digits and inner hyphens, 1–63
// octets; the URL parser has already turned Unicode labels into punycode.
const DNS_LABEL = /^[a-z\d](?:[a-z\d-]{0,61}[a-z\d])?$/i;
// A top-level domain is alphabetic (RFC 3696 section 2) or an IDN (xn--).
const TOP_LEVEL_DOMAIN = /^(?:[a-z]{2,63}|xn--[a-z\d-]{1,59})$/i;
// The WHATWG URL parser rewrites every IPv4 notation (127.1, 2130706433,
// 0x7f.0.0.1, 0177.0.0.1) to dotted decimal, so one pattern catches them all.
const DOTTED_IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;

/**
 * Checks a site URL (spec section 5, DECISIONS.md): trimmed; `https://`
 * prepended when no protocol is given; `http:`/`https:` only; no user name or
 * password; the host a domain name with a top-level domain, neither
 * `localhost` (nor a name under it) nor an IP address in any notation. The
 * URL is sent as typed, so it must be one as typed, not only once the WHATWG
 * parser has repaired it: no whitespace or control characters, no `<` or
 * `>`, a host right after the `//` written without `%` escapes or
 * backslashes, and no port 0.
 *
 * @param raw the field as typed
 * @returns `{ ok: true, url }` with the URL to send (trimmed, with its
 *   protocol, otherwise as typed), or `{ ok: false, problem }`
 */
export function checkSiteUrl(raw: string): SiteUrlCheck {
  const trimmed = raw.trim();
  if (trimmed === '') return { ok: false, problem: 'empty' };
  // The URL parser silently drops tabs and newlines inside a URL, and control
  // characters at its ends; a visitor who typed a space or pasted two lines
  // did not mean one address.
  if (/[\s\p{Cc}]/u.test(trimmed)) return { ok: false, problem: 'format' };
  // "//example.com" is not an address a visitor means to give as is.
  if (trimmed.startsWith('/')) return { ok: false, problem: 'format' };
  const url = HAS_PROTOCOL.test(trimmed) ? trimmed : `https://${trimmed}`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, problem: 'format' };
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    return { ok: false, problem: 'protocol' };
  }
  // The parser drops an empty user name and password ("https://@host"), so
  // look for the "@" itself in the authority (RFC 3986 section 3.2).
  const authority = url.slice(url.indexOf('//') + 2).split(/[/?#]/, 1)[0];
  if (
    parsed.username !== '' ||
    parsed.password !== '' ||
    authority?.includes('@')
  ) {
    return { ok: false, problem: 'credentials' };
  }
  // The parser skips extra slashes: "https:///example.com" has no host.
  if (!authority) return { ok: false, problem: 'format' };
  const host = parsed.hostname.toLowerCase().replace(/\.$/, '');
  if (host.startsWith('[') || DOTTED_IPV4.test(host)) {
    return { ok: false, problem: 'ip' };
  }
  if (host === 'localhost' || host.endsWith('.localhost')) {
    return { ok: false, problem: 'local' };
  }
  // What the parser repairs but a reader of the typed URL would not: a host
  // with "%" escapes ("%65xample.com") or a backslash, which it reads as "/"
  // ("https://example.com\path"); "<" and ">", which RFC 3986 excludes and
  // a browser escapes; and port 0, which no server listens on.
  if (/[%\\]/.test(authority) || /[<>]/.test(trimmed) || parsed.port === '0') {
    return { ok: false, problem: 'format' };
  }
  const labels = host.split('.');
  const isDomainName =
    host.length <= 253 &&
    labels.length >= 2 &&
    labels.every((label) => DNS_LABEL.test(label)) &&
    TOP_LEVEL_DOMAIN.test(labels[labels.length - 1] ?? '');
  return isDomainName ? { ok: true, url } : { ok: false, problem: 'format' };
}

const SITE_URL_MESSAGES: Record<SiteUrlProblem, string> = {
  empty: messages.urlRequired,
  format: messages.urlInvalid,
  protocol: messages.urlProtocol,
  local: messages.urlLocal,
  ip: messages.urlIp,
  credentials: messages.urlCredentials,
};

const signUpSchema = object({
  name: string().trim().required(messages.nameRequired),
  email: string()
    .trim()
    .required(messages.emailRequired)
    .test('html-email', messages.emailInvalid, (value) => isValidEmail(value)),
  url: string()
    .default('')
    .test('site-url', messages.urlInvalid, function siteUrl(value) {
      const check = checkSiteUrl(value);
      return (
        check.ok ||
        this.createError({ message: SITE_URL_MESSAGES[check.problem] })
      );
    }),
  tos: boolean().oneOf([true], messages.tosRequired),
  captcha: string().nullable().required(messages.captchaRequired),
});

/**
 * Runs every client-side rule at once (yup, `abortEarly: false`).
 *
 * @returns field → first message; `{}` when the form may be sent
 */
export function validateSignUp(input: FormToValidate): FieldErrors {
  try {
    signUpSchema.validateSync(
      { ...input, captcha: input.captchaToken },
      { abortEarly: false },
    );
    return {};
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    const errors: FieldErrors = {};
    for (const issue of error.inner) {
      const field = issue.path as ErrorField | undefined;
      if (field !== undefined && errors[field] === undefined) {
        errors[field] = issue.message;
      }
    }
    return errors;
  }
}
