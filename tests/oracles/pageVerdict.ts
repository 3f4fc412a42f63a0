/**
 * The page's verdict on one input, as the form gives it: the same pure code
 * runs in Node (tests/oracles/verdicts.ts) and, bundled, in every browser
 * engine. It must stay free of Node and DOM APIs.
 *
 * As in the page, a site URL whose host needs the UTS #46 rule (ADR-0058) is
 * judged with that rule (common/domainName.ts, the chunk the page loads),
 * and any other input without it.
 */
import { checkHostName } from '../../common/domainName';
import {
  siteUrlNeedsIdnRule,
  validateSignUp,
  type FormToValidate,
} from '../../common/validation';

export type VerdictKind = 'url' | 'email';

/** One input to judge, and where it comes from. */
export interface VerdictCase {
  input: string;
  kind: VerdictKind;
  /** e.g. `urltestdata`, `toascii host`, `toascii url`, `email-validity` */
  source: string;
}

/** A verdict, JSON-serialisable: `message` is the field's error, if any. */
export interface Verdict {
  input: string;
  kind: VerdictKind;
  ok: boolean;
  message?: string;
}

// A form that passes every rule; each case replaces one field of it.
const VALID_FORM: FormToValidate = {
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  url: 'example.com',
  tos: true,
  captchaToken: 'captcha-token',
};

/**
 * @returns the verdict of `validateSignUp` (the page's rules, R5.1 to
 *   R5.9) on a valid form whose `url` or `email` is the case's input
 */
export function pageVerdict({ input, kind }: VerdictCase): Verdict {
  const form = { ...VALID_FORM, [kind]: input };
  const idnRule = siteUrlNeedsIdnRule(form.url) ? checkHostName : undefined;
  const message = validateSignUp(form, idnRule)[kind];
  return message === undefined
    ? { input, kind, ok: true }
    : { input, kind, ok: false, message };
}

/** {@link pageVerdict} over many cases, in order. */
export function pageVerdicts(cases: readonly VerdictCase[]): Verdict[] {
  return cases.map(pageVerdict);
}
