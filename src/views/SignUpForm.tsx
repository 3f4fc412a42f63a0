import { useActorRef, useSelector } from '@xstate/react';
import { useEffect, useRef, useState } from 'react';
import ReCAPTCHA from 'react-google-recaptcha';
import type { InspectionEvent } from 'xstate';
import type {
  CheckboxField as CheckboxFieldName,
  SignUpInput,
  TextField as TextFieldName,
  signUpMachine,
} from '../../machines/signUpMachine';
import { SIGN_UP_FORM_ID } from '../earlyScript';
import { CheckboxField } from './CheckboxField';
import { useEarlyInput } from './earlyInput';
import { ErrorSummary } from './ErrorSummary';
import { TextField } from './TextField';
import { whenIdleOrInteracted } from './whenIdle';

/** The ids of the fields' errors: page hooks of docs/contract.md. */
const ERROR_IDS = {
  name: 'name-error',
  email: 'email-error',
  url: 'url-error',
  tos: 'tos-error',
} as const;

export interface SignUpFormProps {
  /** The sign-up machine with the page's effects provided (src/main.tsx). */
  machine: typeof signUpMachine;
  input: SignUpInput;
  /** Receives the actor's inspection events (Stately's inspector, tests). */
  inspect?: (event: InspectionEvent) => void;
  productName: string;
  recaptchaSiteKey: string;
}

/**
 * The sign-up form: a thin view of the sign-up machine. It renders the
 * machine's context and sends it what the visitor does; every decision
 * (what is sent, which error shows, when inputs are locked) is the machine's.
 */
export function SignUpForm({
  machine,
  input,
  inspect,
  productName,
  recaptchaSiteKey,
}: SignUpFormProps) {
  const captchaRef = useRef<ReCAPTCHA>(null);
  const summaryRef = useRef<HTMLDivElement>(null);
  // Bumped when the machine shows errors; focus follows once they render.
  const [errorsShown, setErrorsShown] = useState(0);
  const actorRef = useActorRef(machine, { input, inspect });
  useEffect(() => {
    const subscriptions = [
      actorRef.on('captcha.reset', () => captchaRef.current?.reset()),
      actorRef.on('errors.shown', () => setErrorsShown((count) => count + 1)),
    ];
    return () => subscriptions.forEach((s) => s.unsubscribe());
  }, [actorRef]);
  useEffect(() => {
    if (errorsShown > 0) summaryRef.current?.focus();
  }, [errorsShown]);
  const formRef = useRef<HTMLFormElement>(null);
  useEarlyInput(formRef, actorRef);
  // The widget (and with it Google's script) mounts on the first
  // interaction with the form or when the browser is idle, never on the
  // critical path; the prerendered page and its hydration show the empty,
  // reserved box. Undefined: not mounted yet.
  const [captchaSize, setCaptchaSize] = useState<'normal' | 'compact'>();
  useEffect(() => {
    const form = formRef.current;
    if (captchaSize || !form) return;
    return whenIdleOrInteracted(form, () =>
      setCaptchaSize(
        // Google's widget is 304 px wide; below that it comes in its compact
        // size (the box's reserved height follows the same media query).
        window.matchMedia?.('(max-width: 379px)').matches
          ? 'compact'
          : 'normal',
      ),
    );
  }, [captchaSize]);
  const compactCaptcha = captchaSize === 'compact';
  const values = useSelector(actorRef, (state) => state.context.values);
  const errors = useSelector(actorRef, (state) => state.context.errors);
  const failure = useSelector(actorRef, (state) => state.context.failure);
  const locked = useSelector(actorRef, (state) => state.hasTag('locked'));
  const submitting = useSelector(actorRef, (state) =>
    state.matches('submitting'),
  );
  const done = useSelector(actorRef, (state) => state.status === 'done');
  const textField = (field: TextFieldName) => ({
    name: field,
    value: values[field],
    error: errors[field],
    errorId: ERROR_IDS[field],
    locked,
    onValueChange: (value: string) =>
      actorRef.send({ type: 'field.change', field, value }),
  });
  const checkboxField = (field: CheckboxFieldName) => ({
    name: field,
    checked: values[field],
    locked,
    onCheckedChange: (checked: boolean) =>
      actorRef.send({ type: 'checkbox.change', field, checked }),
  });

  return (
    <form
      ref={formRef}
      id={SIGN_UP_FORM_ID}
      className="signup-form"
      // Never a GET: should the browser ever submit the form itself, no
      // field may end up in an address, a history entry or a server log.
      method="post"
      noValidate
      aria-busy={submitting}
      onSubmit={(event) => {
        event.preventDefault();
        actorRef.send({ type: 'submit' });
      }}
    >
      <ErrorSummary ref={summaryRef} errors={errors} failure={failure} />
      {/* Announces the request while the submit button keeps its focus. */}
      <p className="visually-hidden" role="status">
        {submitting
          ? 'Creating your account…'
          : done
            ? 'Account created. Taking you to your account…'
            : ''}
      </p>

      <TextField {...textField('name')} label="Your name" autoComplete="name" />
      <TextField
        {...textField('email')}
        label="Email address"
        hint="We’ll send alerts and your sign-in details here."
        type="email"
        autoComplete="email"
        spellCheck={false}
        autoCapitalize="none"
      />
      <TextField
        {...textField('url')}
        label="Website to monitor"
        hint="For example, example.com or https://shop.example.com"
        type="text"
        inputMode="url"
        autoComplete="url"
        spellCheck={false}
        autoCapitalize="none"
      />

      <CheckboxField
        {...checkboxField('newsletter')}
        label="Send me occasional product news by email (optional)"
      />
      <CheckboxField
        {...checkboxField('tos')}
        label={`I agree to the ${productName} terms of service`}
        error={
          errors.tos ? { id: ERROR_IDS.tos, message: errors.tos } : undefined
        }
      />

      <div className="captcha" id="captcha" tabIndex={-1}>
        {errors.captcha && (
          <p className="message message--notice" data-testid="notice-captcha">
            <span className="visually-hidden">Error: </span>
            {errors.captcha}
          </p>
        )}
        <div
          className={
            compactCaptcha
              ? 'captcha__box captcha__box--compact'
              : 'captcha__box'
          }
        >
          {captchaSize && (
            <ReCAPTCHA
              ref={captchaRef}
              sitekey={recaptchaSiteKey}
              size={compactCaptcha ? 'compact' : 'normal'}
              onChange={(token) =>
                actorRef.send(
                  token
                    ? { type: 'captcha.solve', token }
                    : { type: 'captcha.expire' },
                )
              }
              onExpired={() => actorRef.send({ type: 'captcha.expire' })}
              onErrored={() => actorRef.send({ type: 'captcha.expire' })}
            />
          )}
        </div>
      </div>

      {/* aria-disabled rather than disabled: a disabled button would drop
          the focus of the visitor who just pressed it. */}
      <button
        className="button"
        type="submit"
        aria-disabled={locked || undefined}
      >
        {done
          ? 'Account created'
          : submitting
            ? 'Creating your account…'
            : 'Create account'}
      </button>
    </form>
  );
}
