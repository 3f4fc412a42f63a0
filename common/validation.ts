/**
 * The client-side rules of the sign-up form (R5.1 to R5.9 in
 * docs/requirements.md; ADR-0011 to ADR-0019 and the length limits of
 * ADR-0044), as pure functions over plain values. The machine's
 * `validating` state judges the form with {@link validateSignUp}
 * (common/signUpRules.ts); the prefill and the local API reuse the
 * site-URL rule. The e-mail rule is common/emailAddress.ts, the campaign
 * rule common/campaign.ts: the page's first load needs them, and this
 * module, with yup, only once the visitor starts typing (ADR-0071). An
 * internationalised host is judged by the UTS #46 rule of common/domainName.ts,
 * which the caller passes in: the API imports it, the page loads it when such a
 * host appears (ADR-0058).
 */
import { boolean, object, string, ValidationError } from 'yup';
import type { ErrorField, FieldErrors } from '../contract/signUpForm';
import { checkAsciiHostName, needsIdnRule, type HostRule } from './asciiHost';
import { isValidEmail } from './emailAddress';
import { FIELD_LIMITS, fitsFieldLimit } from './fieldLimits';

/**
 * A whole number as the visitor reads it in British English, digits
 * grouped in threes by commas: `2048` → `2,048`. Not `toLocaleString`: its
 * first call loads the locale's number format, which cost about 25 ms of
 * the page's start on a fast machine (a long task on a phone).
 */
const characters = (limit: number) =>
  String(limit).replace(/\B(?=(\d{3})+$)/g, ',');

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
  nameTooLong: `Enter a name of ${characters(FIELD_LIMITS.name)} characters or fewer`,
  nameRefused: `Enter your name as plain text, up to ${characters(FIELD_LIMITS.name)} characters, without web addresses or HTML`,
  emailRequired: 'Enter your email address',
  emailInvalid:
    'Enter an email address in the correct format, like name@example.com',
  emailTooLong: `Enter an email address of ${characters(FIELD_LIMITS.email)} characters or fewer`,
  urlRequired: 'Enter the address of the website to monitor, like example.com',
  urlInvalid: 'Enter a website address in the correct format, like example.com',
  urlProtocol: 'Enter a website address that starts with http:// or https://',
  urlLocal:
    'Enter the public address of your website, like example.com – localhost cannot be reached from the internet',
  urlIp:
    'Enter the domain name of your website, like example.com, not an IP address',
  urlCredentials:
    'Enter the website address without a user name or password, like example.com',
  urlInvisible:
    'Enter the website address without invisible characters, such as zero-width spaces',
  urlLookalike:
    'Enter the website address with ordinary “/”, “:”, “@” and “%” signs, not full-width or look-alike ones',
  urlUnchecked:
    'Check your internet connection and submit again – the website address could not be checked',
  urlTooLong: `Enter a website address of ${characters(FIELD_LIMITS.url)} characters or fewer`,
  tosRequired: 'Agree to the terms of service to create your account',
  captchaRequired: 'Tick “I’m not a robot” to show you are a person',
} as const;

/**
 * Why a site URL is refused; each has its own message. `unchecked`: the
 * host needs the UTS #46 rule and none was given (ADR-0059).
 */
export type SiteUrlProblem =
  | 'empty'
  | 'format'
  | 'protocol'
  | 'local'
  | 'ip'
  | 'credentials'
  | 'invisible'
  | 'lookalike'
  | 'unchecked';

export type SiteUrlCheck =
  { ok: true; url: string } | { ok: false; problem: SiteUrlProblem };

// RFC 3986 §3.1: scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )
// and ":". A scheme followed by "//" is a protocol. Without "//", "user:pass@
// example.com" and "example.com:8080" are a host without one, so only the
// well-known schemes that never take "//" count ("mailto:", "javascript:").
const HAS_PROTOCOL =
  /^(?:[a-z][a-z\d+.-]*:\/\/|(?:about|blob|data|file|javascript|mailto|sms|tel|urn|vbscript|view-source):)/i;
// Zero-width and other invisible characters: format characters (soft
// hyphen, zero-width space and joiners, bidirectional controls, word joiner)
// and the default-ignorable code points (variation selectors, Hangul
// fillers, combining grapheme joiner). UTS #46 deletes some, refuses others,
// and each parser's version decides which.
const INVISIBLE = /[\p{Cf}\p{Default_Ignorable_Code_Point}]/u;
// Zero-width joiner and non-joiner: in the host they are left to the host
// rule, which allows them where IDNA does (RFC 5892 Appendix A, CONTEXTJ).
const JOINERS = /[\u200c\u200d]/g;
// ASCII punctuation: what a compatibility form ("％", "／", "＼", "＠", "：",
// "﹫", "℀") turns into under NFKC, which a parser may or may not apply.
const ASCII_PUNCTUATION = /[!-/:-@[-`{-~\u3002]/;
// RFC 3490 §3.1: the ideographic, full-width and half-width full
// stops are label dots; other forms of them (U+FE12, "︒") are not.
const LABEL_DOTS = '\u3002\uff0e\uff61';
const IPV6_LITERAL = /^\[[\da-f:.]*:[\da-f:.]*\]$/i;
const PORT = /^\d*$/;

/**
 * Whether the authority holds an invisible character as typed or after
 * NFKC (rule 8 of docs/url-and-email-rules.md): a zero-width joiner or
 * non-joiner in the host, which the host rule judges, aside; in the port,
 * or anywhere in a bracketed host, it counts.
 *
 * @param authority from `//` to the first `/`, `?` or `#`, without `@`
 */
function hasInvisible(authority: string): boolean {
  const colon = authority.indexOf(':');
  const hostEnd = authority.startsWith('[')
    ? 0
    : colon === -1
      ? authority.length
      : colon;
  const judged =
    authority.slice(0, hostEnd).replace(JOINERS, '') + authority.slice(hostEnd);
  // Stryker disable next-line LogicalOperator: in Node's Unicode tables NFKC neither makes nor unmakes an invisible character; another engine's may
  return INVISIBLE.test(judged) || INVISIBLE.test(judged.normalize('NFKC'));
}

/** Whether a character outside ASCII becomes URL punctuation under NFKC. */
function isLookalike(char: string): boolean {
  return (
    /[^\0-\x7f]/.test(char) &&
    !LABEL_DOTS.includes(char) &&
    ASCII_PUNCTUATION.test(char.normalize('NFKC'))
  );
}

/**
 * Checks a site URL (R5.3 to R5.7 in docs/requirements.md, ADR-0013 and
 * ADR-0014, docs/url-and-email-rules.md): trimmed;
 * `https://` prepended when no protocol is given; `http:`/`https:` only; no
 * user name or password; the host a domain name with a top-level domain,
 * neither `localhost` (nor a name under it) nor an IP address in any
 * notation (common/asciiHost.ts, common/domainName.ts). The URL is sent
 * as typed, so it must be one as typed: no whitespace or control characters, no `<` or `>`, a
 * host right after the `//` without `%` escapes, backslashes, invisible
 * characters or compatibility forms of `%`, `/`, `\`, `@`, `:` (checked as
 * typed and after NFKC), and a port of 1–65535 in ASCII digits if any.
 *
 * The verdict never calls the runtime's URL parser, and an internationalised
 * host is judged by the pinned `tr46` (`idnRule`), so Node's and every
 * browser's give the same answer.
 *
 * @param raw the field as typed
 * @param idnRule the rule for a host with a non-ASCII character or an
 *   `xn--` label (`checkHostName` of common/domainName.ts); without it such
 *   a host is `unchecked`
 * @returns `{ ok: true, url }` with the URL to send (trimmed, with its
 *   protocol, otherwise as typed), or `{ ok: false, problem }`
 */
export function checkSiteUrl(raw: string, idnRule?: HostRule): SiteUrlCheck {
  const refuse = (problem: SiteUrlProblem): SiteUrlCheck => ({
    ok: false,
    problem,
  });
  const trimmed = raw.trim();
  if (trimmed === '') return refuse('empty');
  // The URL parser silently drops tabs and newlines inside a URL, and control
  // characters at its ends; a visitor who typed a space or pasted two lines
  // did not mean one address.
  if (/[\s\p{Cc}]/u.test(trimmed)) return refuse('format');
  const url = HAS_PROTOCOL.test(trimmed) ? trimmed : `https://${trimmed}`;
  const scheme = url.slice(0, url.indexOf(':')).toLowerCase();
  if (scheme !== 'http' && scheme !== 'https') return refuse('protocol');
  // RFC 3986 §3.2: the authority runs from "//" to the first "/",
  // "?" or "#"; an "@" in it, even with an empty user name, is a credential.
  // An empty one ("//example.com" and "https:///example.com", whose extra
  // slash a parser would skip: rules 3 and 7 of docs/url-and-email-rules.md)
  // is no domain name, and the host rule refuses it as `format`.
  // Stryker disable next-line StringLiteral: split always yields a first part; the fallback only satisfies the type
  const authority = url.slice(scheme.length + 3).split(/[/?#]/, 1)[0] ?? '';
  if (authority.includes('@')) return refuse('credentials');
  if (hasInvisible(authority)) return refuse('invisible');
  if ([...authority].some(isLookalike)) return refuse('lookalike');
  // What a parser repairs but a reader of the typed URL would not: "%"
  // escapes in the host ("%65xample.com") and backslashes, which a parser
  // reads as "/" ("https://example.com\path"). "<" and ">", which RFC 3986
  // excludes and a browser escapes, are refused last, so that an IP address
  // or localhost still gets its own message.
  if (/[%\\]/.test(authority)) return refuse('format');
  if (authority.startsWith('[')) {
    const literal = authority.slice(0, authority.indexOf(']') + 1);
    return refuse(IPV6_LITERAL.test(literal) ? 'ip' : 'format');
  }
  const colon = authority.indexOf(':');
  const host = colon === -1 ? authority : authority.slice(0, colon);
  let hostCheck;
  if (!needsIdnRule(host)) hostCheck = checkAsciiHostName(host);
  else if (idnRule) hostCheck = idnRule(host);
  else return refuse('unchecked');
  if (!hostCheck.ok) return refuse(hostCheck.problem);
  // RFC 3986 §3.2.3: port = *DIGIT; 0 is no port a server listens on.
  const port = colon === -1 ? '' : authority.slice(colon + 1);
  const portNumber = Number(port);
  const portOk =
    PORT.test(port) &&
    (port === '' || (portNumber >= 1 && portNumber <= 65535));
  if (!portOk || /[<>]/.test(trimmed)) return refuse('format');
  return { ok: true, url };
}

/** The e-mail and site URL an address names, trimmed (src/signUp/prefill.ts). */
export type AddressPrefill = Partial<Record<'email' | 'url', string>>;

/**
 * R2.4: what of the address's e-mail and site URL prefills the form: the
 * e-mail when valid; the site URL when the site-URL rule accepts it, or
 * when its host needs the UTS #46 rule, which judges it at the submit
 * (ADR-0058).
 *
 * @param unchecked the address's values, trimmed
 * @returns those that prefill the form
 */
export function prefillOf(unchecked: AddressPrefill): AddressPrefill {
  const { email, url } = unchecked;
  const urlCheck = url === undefined ? undefined : checkSiteUrl(url);
  return {
    ...(email !== undefined && isValidEmail(email) && { email }),
    ...(urlCheck &&
      (urlCheck.ok || urlCheck.problem === 'unchecked') && { url }),
  };
}

/**
 * Whether the site URL as typed has a host that only the UTS #46 rule
 * (common/domainName.ts) can judge: a non-ASCII character or an `xn--`
 * label in it (ADR-0058). What the page's prefetch of that rule asks.
 */
export function siteUrlNeedsIdnRule(raw: string): boolean {
  const check = checkSiteUrl(raw);
  return !check.ok && check.problem === 'unchecked';
}

const SITE_URL_MESSAGES: Record<SiteUrlProblem, string> = {
  empty: messages.urlRequired,
  format: messages.urlInvalid,
  protocol: messages.urlProtocol,
  local: messages.urlLocal,
  ip: messages.urlIp,
  credentials: messages.urlCredentials,
  invisible: messages.urlInvisible,
  lookalike: messages.urlLookalike,
  unchecked: messages.urlUnchecked,
};

/**
 * The message for a site URL's problem (the sign-up form's, and the
 * account's site form's on the server).
 */
export function siteUrlMessage(problem: SiteUrlProblem): string {
  return SITE_URL_MESSAGES[problem];
}

/** What the rules are given beside the form: the UTS #46 host rule, if loaded. */
interface RuleContext {
  idnRule?: HostRule;
}

// ADR-0044: each text field's length is counted on the value as it is sent
// (trimmed; the URL with the protocol the page adds), and checked after its
// format, so a value both wrong and long hears about its format first.
const signUpSchema = object({
  name: string()
    .trim()
    .required(messages.nameRequired)
    .test('name-length', messages.nameTooLong, (value) =>
      fitsFieldLimit('name', value),
    ),
  email: string()
    .trim()
    .required(messages.emailRequired)
    .test('html-email', messages.emailInvalid, (value) => isValidEmail(value))
    .test('email-length', messages.emailTooLong, (value) =>
      fitsFieldLimit('email', value),
    ),
  url: string()
    .default('')
    .test('site-url', messages.urlInvalid, function siteUrl(value) {
      const { idnRule } = this.options.context as RuleContext;
      const check = checkSiteUrl(value, idnRule);
      if (!check.ok) {
        return this.createError({ message: SITE_URL_MESSAGES[check.problem] });
      }
      return (
        fitsFieldLimit('url', check.url) ||
        this.createError({ message: messages.urlTooLong })
      );
    }),
  tos: boolean().oneOf([true], messages.tosRequired),
  captcha: string().nullable().required(messages.captchaRequired),
});

/**
 * Runs every client-side rule at once (yup, `abortEarly: false`).
 *
 * @param idnRule the UTS #46 host rule (common/domainName.ts); without it an
 *   internationalised host gets the `unchecked` message
 * @returns field → first message; `{}` when the form may be sent
 */
export function validateSignUp(
  input: FormToValidate,
  idnRule?: HostRule,
): FieldErrors {
  try {
    signUpSchema.validateSync(
      { ...input, captcha: input.captchaToken },
      {
        abortEarly: false,
        // A form with errors is an answer, not a fault: no stack trace is
        // read, so none is captured. Capturing them was a third of the time
        // the model's path planner spent judging forms (node --cpu-prof).
        // Stryker disable next-line BooleanLiteral: equivalent, only the cost changes
        disableStackTrace: true,
        context: { idnRule } satisfies RuleContext,
      },
    );
    return {};
  } catch (error) {
    // Stryker disable next-line ConditionalExpression: no rule throws anything else; were one to, `error.inner` would throw all the same
    if (!(error instanceof ValidationError)) throw error;
    const errors: FieldErrors = {};
    // Every rule of the schema is on a field, so every issue has a path.
    for (const issue of error.inner) {
      errors[issue.path as ErrorField] ??= issue.message;
    }
    return errors;
  }
}
