/**
 * The form's rules (common/validation.ts) as the sign-up machine's
 * `checkForm` actor asks them: one verdict per submit, the field errors or
 * the form to send (`FormVerdict` of contract/signUpForm.ts), so that the
 * machine imports no rule. The page loads this module in its submit chunk
 * once the visitor starts typing (src/signUp/submitChunk.ts, ADR-0071);
 * the tests judge forms with the same rules.
 */
import type { SignUpRequest } from '../contract/signUp';
import type {
  FieldErrors,
  FormToCheck,
  FormVerdict,
} from '../contract/signUpForm';
import type { HostRule } from './asciiHost';
import {
  checkSiteUrl,
  messages,
  siteUrlNeedsIdnRule,
  validateSignUp,
} from './validation';

/**
 * The request a valid form sends (R3.1, R5): name and e-mail trimmed, the
 * site URL with its protocol, the campaign only when one is kept.
 *
 * @param hostRule the UTS #46 host rule, if loaded
 * @returns null while the form has errors or no captcha token
 */
export function requestOf(
  form: FormToCheck,
  errors: FieldErrors,
  hostRule?: HostRule,
): SignUpRequest | null {
  const url = checkSiteUrl(form.values.url, hostRule);
  if (Object.keys(errors).length > 0 || !form.captchaToken || !url.ok) {
    return null;
  }
  return {
    name: form.values.name.trim(),
    email: form.values.email.trim(),
    captchaToken: form.captchaToken,
    newsletter: form.values.newsletter,
    url: url.url,
    ...(form.utmCampaign && { utmCampaign: form.utmCampaign }),
  };
}

/**
 * Every client-side rule at once (R5, R4.6), and the form to send when
 * none is broken.
 *
 * @param hostRule the UTS #46 host rule; without it a site URL whose host
 *   needs it says that it could not be checked (ADR-0059)
 */
export function verdictOf(form: FormToCheck, hostRule?: HostRule): FormVerdict {
  const errors = validateSignUp(
    { ...form.values, captchaToken: form.captchaToken },
    hostRule,
  );
  const request = requestOf(form, errors, hostRule);
  return {
    errors,
    accepted: request && { request, nameRefused: messages.nameRefused },
  };
}

/**
 * The verdict on a submitted form (R5, R4.6; ADR-0058, ADR-0059): the UTS #46
 * host rule is fetched only when the site URL's host needs it, and a fetch that
 * fails (offline) leaves the site URL unchecked, which is an error.
 *
 * @param loadHostRule fetches the host rule's chunk; may reject
 * @returns the verdict; never rejects
 */
export async function judgeForm(
  form: FormToCheck,
  loadHostRule: () => Promise<HostRule>,
): Promise<FormVerdict> {
  if (!siteUrlNeedsIdnRule(form.values.url)) return verdictOf(form);
  const hostRule = await loadHostRule().catch(() => undefined);
  return verdictOf(form, hostRule);
}
