import { useActorRef, useSelector } from '@xstate/react';
import { useEffect, useRef } from 'react';
import ReCAPTCHA from 'react-google-recaptcha';
import type { InspectionEvent } from 'xstate';
import type {
  Failure,
  SignUpInput,
  TextField as TextFieldName,
  signUpMachine,
} from '../../machines/signUpMachine';
import { TextField } from './TextField';

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
  const actorRef = useActorRef(machine, { input, inspect });
  useEffect(() => {
    const subscription = actorRef.on('captcha.reset', () =>
      captchaRef.current?.reset(),
    );
    return () => subscription.unsubscribe();
  }, [actorRef]);
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
    disabled: locked,
    onValueChange: (value: string) =>
      actorRef.send({ type: 'field.change', field, value }),
  });

  return (
    <form
      id="signup-form"
      className="signup-form"
      noValidate
      aria-busy={submitting}
      onSubmit={(event) => {
        event.preventDefault();
        actorRef.send({ type: 'submit' });
      }}
    >
      {failure && failure.kind !== 'invalidName' && (
        <FailureMessage kind={failure.kind} />
      )}

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

      <div className="checkbox">
        <input
          className="checkbox__input"
          type="checkbox"
          id="newsletter"
          name="newsletter"
          checked={values.newsletter}
          disabled={locked}
          onChange={(event) =>
            actorRef.send({
              type: 'checkbox.change',
              field: 'newsletter',
              checked: event.target.checked,
            })
          }
        />
        <label className="checkbox__label" htmlFor="newsletter">
          Send me occasional product news by email (optional)
        </label>
      </div>

      <div className={errors.tos ? 'field field--error' : 'field'}>
        {errors.tos && (
          <p id="tos-error" className="field__error">
            <span className="visually-hidden">Error: </span>
            {errors.tos}
          </p>
        )}
        <div className="checkbox">
          <input
            className="checkbox__input"
            type="checkbox"
            id="tos"
            name="tos"
            checked={values.tos}
            disabled={locked}
            aria-invalid={errors.tos ? true : undefined}
            aria-describedby={errors.tos ? 'tos-error' : undefined}
            onChange={(event) =>
              actorRef.send({
                type: 'checkbox.change',
                field: 'tos',
                checked: event.target.checked,
              })
            }
          />
          <label className="checkbox__label" htmlFor="tos">
            I agree to the {productName} terms of service
          </label>
        </div>
      </div>

      <div className="captcha">
        {errors.captcha && (
          <p
            className="message message--notice"
            role="alert"
            data-testid="notice-captcha"
          >
            <span className="visually-hidden">Error: </span>
            {errors.captcha}
          </p>
        )}
        <div className="captcha__box">
          <ReCAPTCHA
            ref={captchaRef}
            sitekey={recaptchaSiteKey}
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
        </div>
      </div>

      <button className="button" type="submit" disabled={locked}>
        {done
          ? 'Account created'
          : submitting
            ? 'Creating your account…'
            : 'Create account'}
      </button>
    </form>
  );
}

/** The two failures shown in a message area of their own (spec section 8). */
const FAILURE_MESSAGES = {
  general: {
    testId: 'error-general',
    title: 'Your account was not created',
    text: 'Something went wrong on our side or on the way. Check your details and try again. If it keeps happening, try again later.',
  },
  rateLimited: {
    testId: 'error-rate-limit',
    title: 'Too many sign-up attempts',
    text: 'We have received too many sign-ups from your network. Wait 15 minutes, then try again.',
  },
} as const;

function FailureMessage({
  kind,
}: {
  kind: Exclude<Failure['kind'], 'invalidName'>;
}) {
  const { testId, title, text } = FAILURE_MESSAGES[kind];
  return (
    <div className="message message--error" role="alert" data-testid={testId}>
      <h2 className="message__title">{title}</h2>
      <p>{text}</p>
    </div>
  );
}
