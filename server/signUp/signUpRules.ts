/**
 * The sign-up API's rules for one form body (docs/contract.md "HTTP",
 * `POST /2/account/signup/`; ADR-0038 to ADR-0040). Pure: reads
 * the body into the account to create, or into the refusal the API answers
 * with. Whether the address is already in use is the accounts repository's
 * to say (server/accounts/accounts.ts), in the same transaction that creates it.
 */
import { SIGN_UP_FIELDS, type SignUpAnswer } from '../../contract/signUp';
import { API_CODES } from '../../contract/apiCodes';
import { refusal } from '../http/errorAnswer';
import type { UntrustedBody } from '../http/formBody';
import { checkHostName } from '../../common/domainName';
import { keptCampaign } from '../../common/campaign';
import { isValidEmail } from '../../common/emailAddress';
import { checkSiteUrl } from '../../common/validation';
import { FIELD_LIMITS, fitsFieldLimit } from '../../common/fieldLimits';

/** The most characters (code points) of a name, trimmed (ADR-0038, ADR-0044). */
export const NAME_MAX_LENGTH = FIELD_LIMITS.name;

// A name that carries a link or markup is how sign-up spam looks: scheme,
// "www.", a bare domain with a common top-level domain, or an HTML tag/entity.
const NAME_WITH_URL =
  /[a-z][a-z\d+.-]*:\/\/|www\.|\b[a-z\d-]+\.(?:com|net|org|io|ru|cn|info|biz|xyz|top|co|me|ly|app|dev|site|online|link|click)\b/i;
const NAME_WITH_MARKUP = /[<>]|&[#a-z\d]+;/i;
// Control characters (C0, DEL, C1: NUL, tab, newline, escape…) and the
// bidirectional embeddings, overrides and isolates (Unicode TR 9), which
// make a name display differently from what it is ("Trojan Source"). Joiners
// (U+200C, U+200D) stay: names in Persian or emoji sequences need them.
const NAME_WITH_CONTROL = /[\p{Cc}\u202a-\u202e\u2066-\u2069]/u;

/** Why a name is refused, or undefined when it is accepted. */
export function nameProblem(name: string): string | undefined {
  const trimmed = name.trim();
  if (trimmed === '') return 'empty';
  if ([...trimmed].length > NAME_MAX_LENGTH) return 'too long';
  if (NAME_WITH_URL.test(trimmed)) return 'contains a URL';
  if (NAME_WITH_MARKUP.test(trimmed)) return 'contains markup';
  if (NAME_WITH_CONTROL.test(trimmed)) return 'contains control characters';
  return undefined;
}

/** The accepted sign-up's fields, normalised. */
export interface NewAccount {
  name: string;
  email: string;
  newsletter: boolean;
  url: string | undefined;
  utmCampaign: string | undefined;
  captchaToken: string;
}

/**
 * Checks a body field by field, in the order of the payload
 * (R3.1 to R3.4 in docs/requirements.md).
 *
 * @param body the parsed body; fields that are neither absent nor a single
 *   string (repeated, or not a string at all) are refused, bar `utm_campaign`
 * @returns the account to create, or the refusal to answer with
 *   (`CSAPI_INVALID_PARAMETER` with the field as `info`, a name, e-mail
 *   address or URL over its limit of common/fieldLimits.ts included (ADR-0044),
 *   or `CSAPI_CAPTCHA_MISSING` for a missing captcha token); `utm_campaign`
 *   is never refused: the campaign rule ({@link keptCampaign}) keeps it or
 *   ignores it, a campaign over its limit too (ADR-0010)
 */
export function readSignUp(body: UntrustedBody): NewAccount | SignUpAnswer {
  const single = (key: string): string | undefined | null => {
    // Own fields only: `constructor` and friends are not sent fields.
    if (!Object.hasOwn(body, key)) return undefined;
    const value = body[key];
    if (value === undefined || typeof value === 'string') return value;
    // Repeated fields are ambiguous, other types are not a form's: refuse
    // rather than pick one or coerce.
    return null;
  };
  const name = single(SIGN_UP_FIELDS.name);
  if (typeof name !== 'string' || nameProblem(name) !== undefined) {
    return refusal(API_CODES.invalidParameter, SIGN_UP_FIELDS.name);
  }
  const email = single(SIGN_UP_FIELDS.email);
  if (
    typeof email !== 'string' ||
    !isValidEmail(email) ||
    !fitsFieldLimit('email', email.trim())
  ) {
    return refusal(API_CODES.invalidParameter, SIGN_UP_FIELDS.email);
  }
  const captchaToken = single(SIGN_UP_FIELDS.captchaToken);
  if (captchaToken === null) {
    return refusal(API_CODES.invalidParameter, SIGN_UP_FIELDS.captchaToken);
  }
  if (!captchaToken?.trim()) {
    return refusal(API_CODES.captchaMissing, SIGN_UP_FIELDS.captchaToken);
  }
  const newsletter = single(SIGN_UP_FIELDS.newsletter);
  if (newsletter !== '1' && newsletter !== '0') {
    return refusal(API_CODES.invalidParameter, SIGN_UP_FIELDS.newsletter);
  }
  const url = single(SIGN_UP_FIELDS.url);
  if (url === null || (url !== undefined && !checkUrlWithProtocol(url))) {
    return refusal(API_CODES.invalidParameter, SIGN_UP_FIELDS.url);
  }
  // The page's campaign rule: a campaign it would not keep (over its limit,
  // unprintable, repeated, not a string) is ignored, never refused (ADR-0010).
  const utmCampaign = keptCampaign(
    Object.hasOwn(body, SIGN_UP_FIELDS.utmCampaign)
      ? body[SIGN_UP_FIELDS.utmCampaign]
      : undefined,
  );
  return {
    name: name.trim(),
    email: email.trim(),
    newsletter: newsletter === '1',
    url: url?.trim(),
    utmCampaign,
    captchaToken,
  };
}

// R3.3 (docs/requirements.md): a URL is always sent with its protocol;
// ADR-0044: it fits its limit as sent, trimmed. ADR-0058: the API judges an
// internationalised host with the page's UTS #46 rule, imported directly.
function checkUrlWithProtocol(url: string): boolean {
  const check = checkSiteUrl(url, checkHostName);
  return (
    check.ok && check.url === url.trim() && fitsFieldLimit('url', check.url)
  );
}
