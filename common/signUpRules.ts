/**
 * The form's rules (common/validation.ts) in the shape the sign-up machine
 * judges a form with (`SignUpRules` of machines/signUpMachine.ts), so that
 * the machine imports no rule. The page loads this module as a chunk of its
 * own once the visitor starts typing (src/submitChunk.ts, D71 in
 * docs/decisions.md); the tests give the machine the same rules.
 */
import type {
  FieldErrors,
  FormToCheck,
  HostRule,
  SignUpRules,
} from '../machines/signUpMachine';
import type { SignUpRequest } from '../machines/signUpContract';
import { checkSiteUrl, messages, validateSignUp } from './validation';

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

/** Every client-side rule at once, with the host rule if it has loaded. */
function errorsOf(form: FormToCheck, hostRule?: HostRule): FieldErrors {
  return validateSignUp(
    { ...form.values, captchaToken: form.captchaToken },
    hostRule,
  );
}

/** The form's rules, as the sign-up machine asks them (R5, R4.6, R8.2; D58, D59). */
export const signUpRules: SignUpRules = {
  check(form, hostRule) {
    const given = hostRule ?? undefined;
    const url = checkSiteUrl(form.values.url, given);
    if (!url.ok && url.problem === 'unchecked') return null;
    const errors = errorsOf(form, given);
    return { errors, request: requestOf(form, errors, given) };
  },
  checkWithoutHostRule: (form) => errorsOf(form),
  nameRefused: messages.nameRefused,
};
