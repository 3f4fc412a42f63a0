/**
 * The form's rules (common/validation.ts) as the two actions the sign-up
 * machine leaves to be provided, so that the machine imports no rule:
 *
 *   signUpMachine.provide({ actions: signUpRuleActions })
 *
 * The page (src/app.tsx) and the tests provide the same ones.
 */
import { assign } from 'xstate';
import type {
  FieldErrors,
  SignUpContext,
  SignUpEvent,
} from '../machines/signUpMachine';
import type { Failure, SignUpRequest } from '../machines/signUpContract';
import { checkSiteUrl, messages, validateSignUp } from './validation';

/**
 * The request a valid form sends (R3.1, R5): name and e-mail trimmed, the
 * site URL with its protocol, the campaign only when one is kept.
 *
 * @returns null while the form has errors or no captcha token
 */
export function requestOf(
  context: SignUpContext,
  errors: FieldErrors,
): SignUpRequest | null {
  const url = checkSiteUrl(context.values.url, context.hostRule ?? undefined);
  if (Object.keys(errors).length > 0 || !context.captchaToken || !url.ok) {
    return null;
  }
  return {
    name: context.values.name.trim(),
    email: context.values.email.trim(),
    captchaToken: context.captchaToken,
    newsletter: context.values.newsletter,
    url: url.url,
    ...(context.utmCampaign && { utmCampaign: context.utmCampaign }),
  };
}

/** Every client-side rule at once, with the host rule if it has loaded. */
function errorsOf(context: SignUpContext): FieldErrors {
  return validateSignUp(
    { ...context.values, captchaToken: context.captchaToken },
    context.hostRule ?? undefined,
  );
}

export const signUpRuleActions = {
  /**
   * `validating`'s entry: every client-side rule at once (R5, R4.6). When
   * the site URL's host needs the UTS #46 rule and it has not loaded, no
   * error is shown yet and `awaitsHostRule` is set (D58).
   */
  checkForm: assign<SignUpContext, SignUpEvent, unknown, SignUpEvent, never>(
    ({ context }) => {
      const url = checkSiteUrl(
        context.values.url,
        context.hostRule ?? undefined,
      );
      if (!url.ok && url.problem === 'unchecked') {
        return { errors: {}, request: null, awaitsHostRule: true };
      }
      const errors = errorsOf(context);
      return {
        errors,
        request: requestOf(context, errors),
        awaitsHostRule: false,
      };
    },
  ),
  /**
   * When the host rule could not be loaded: every rule's errors, the site
   * URL's saying that it could not be checked (D59); nothing to send.
   */
  checkFormWithoutHostRule: assign<
    SignUpContext,
    SignUpEvent,
    unknown,
    SignUpEvent,
    never
  >(({ context }) => ({
    errors: errorsOf(context),
    request: null,
    awaitsHostRule: false,
  })),
  /**
   * R8.2: a refused name marks the name field and shows its help text.
   * Its params are the failure the request ended with (`failureOf`).
   */
  explainFailure: assign<
    SignUpContext,
    SignUpEvent,
    Failure,
    SignUpEvent,
    never
  >((_, failure) =>
    failure.kind === 'invalidName'
      ? { errors: { name: messages.nameRefused } }
      : {},
  ),
};
