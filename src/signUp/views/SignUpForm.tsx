import { useActorRef, useSelector } from '@xstate/react';
import { useRef } from 'react';
import type { InspectionEvent } from 'xstate';
import {
  type CheckboxField as CheckboxFieldName,
  type SignUpInput,
  type TextField as TextFieldName,
  type signUpMachine,
} from '../../../machines/signUpMachine';
import {
  fieldError,
  selectFormLevelFailure,
  selectFieldErrors,
  selectLocked,
  selectProgress,
  selectValues,
} from '../../../machines/signUpSelectors';
import { SIGN_UP_FORM_ID, type DraftPlace } from '../../inputCapture';
import { useAfterPress } from './afterPress';
import { CaptchaField } from './CaptchaField';
import {
  useCapturedInput,
  useLatePrefill,
  type LatePrefill,
} from './capturedInput';
import { CheckboxField } from './CheckboxField';
import { useDraftSync } from './draftSync';
import { EmailSuggestion, useEmailSuggestion } from './EmailSuggestion';
import { useErrorFocus } from './errorFocus';
import { ErrorSummary } from './ErrorSummary';
import { useFormHelp } from './formHelpLoader';
import { TextField } from './TextField';

export interface SignUpFormProps {
  /** The sign-up machine with the page's effects provided (src/app.tsx). */
  machine: typeof signUpMachine;
  input: SignUpInput;
  /** Receives the actor's inspection events (Stately's inspector, tests). */
  inspect?: (event: InspectionEvent) => void;
  productName: string;
  recaptchaSiteKey: string;
  /** Where the tab's sign-up draft lives (ADR-0055); none: no draft is kept. */
  draft?: DraftPlace;
  /**
   * The address's e-mail and site URL that the rules accept (R2.4, ADR-0071),
   * once their chunk has judged them; absent when the address names
   * neither.
   */
  latePrefill?: Promise<LatePrefill>;
}

/** What the status line announces and the submit button says, by progress. */
const PROGRESS_TEXT = {
  editing: { status: '', button: 'Create account' },
  sending: {
    status: 'Creating your account…',
    button: 'Creating your account…',
  },
  signedUp: {
    status: 'Account created. Taking you to your account…',
    button: 'Account created',
  },
} as const;

/**
 * The sign-up form: a thin view of the sign-up machine. It renders what the
 * machine's selectors answer and sends it what the visitor does; every
 * decision (what is sent, which error shows, when inputs are locked) is the
 * machine's. The captcha box (CaptchaField) and the focus after errors
 * (useErrorFocus) are parts of their own.
 */
export function SignUpForm({
  machine,
  input,
  inspect,
  productName,
  recaptchaSiteKey,
  draft,
  latePrefill,
}: SignUpFormProps) {
  const actorRef = useActorRef(machine, { input, inspect });
  const summaryRef = useErrorFocus(actorRef);
  const formRef = useRef<HTMLFormElement>(null);
  // After useErrorFocus: a held submit's errors must find its listener.
  useCapturedInput(formRef, actorRef);
  useLatePrefill(actorRef, latePrefill);
  useDraftSync(actorRef, draft);
  const help = useFormHelp(formRef);
  const emailSuggestion = useEmailSuggestion(help);
  const afterPress = useAfterPress();
  const formLevelFailure = useSelector(actorRef, selectFormLevelFailure);
  const values = useSelector(actorRef, selectValues);
  const errors = useSelector(actorRef, selectFieldErrors);
  const locked = useSelector(actorRef, selectLocked);
  const progress = useSelector(actorRef, selectProgress);
  const text = PROGRESS_TEXT[progress];
  const textField = (field: TextFieldName) => ({
    name: field,
    value: values[field],
    error: fieldError(errors, field),
    locked,
    onValueChange: (value: string) =>
      actorRef.send({ type: 'field.change', field, value }),
  });
  const checkboxField = (field: CheckboxFieldName) => ({
    name: field,
    value: values[field],
    error: fieldError(errors, field),
    locked,
    onValueChange: (checked: boolean) =>
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
      aria-busy={progress === 'sending'}
      onSubmit={(event) => {
        event.preventDefault();
        emailSuggestion.check(values.email);
        actorRef.send({ type: 'submit' });
      }}
    >
      <ErrorSummary
        ref={summaryRef}
        failure={formLevelFailure}
        errors={errors}
        Details={help?.ErrorDetails}
      />
      {/* Announces the request while the submit button keeps its focus. */}
      <p className="visually-hidden" role="status">
        {text.status}
      </p>

      {/* ADR-0056: mobile keyboards. Enter moves on (`next`) until the last
          input, where it submits (`go`). */}
      <TextField
        {...textField('name')}
        label="Your name"
        autoComplete="name"
        autoCapitalize="words"
        enterKeyHint="next"
      />
      <TextField
        {...textField('email')}
        label="Email address"
        hint="We’ll send alerts and your sign-in details here."
        type="email"
        autoComplete="email"
        spellCheck={false}
        autoCapitalize="none"
        enterKeyHint="next"
        onBlur={(event) => {
          const email = event.currentTarget.value;
          // A pointer press that blurs the field must land where it was
          // pressed: the suggestion waits until the press has ended (ADR-0054).
          afterPress(() => emailSuggestion.check(email));
        }}
        below={
          <EmailSuggestion
            suggested={emailSuggestion.suggestionFor(values.email)}
            Advice={emailSuggestion.Advice}
            locked={locked}
            onApply={(suggested) => {
              actorRef.send({
                type: 'field.change',
                field: 'email',
                value: suggested,
              });
              // The button leaves with the suggestion: the focus goes back
              // to the address it changed.
              formRef.current
                ?.querySelector<HTMLInputElement>('#email')
                ?.focus();
            }}
          />
        }
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
        enterKeyHint="go"
      />

      <CheckboxField
        {...checkboxField('newsletter')}
        label="Send me occasional product news by email (optional)"
      />
      <CheckboxField
        {...checkboxField('tos')}
        label={`I agree to the ${productName} terms of service`}
      />

      <CaptchaField
        actorRef={actorRef}
        formRef={formRef}
        siteKey={recaptchaSiteKey}
        error={fieldError(errors, 'captcha')}
      />

      {/* aria-disabled rather than disabled: a disabled button would drop
          the focus of the visitor who just pressed it. */}
      <button
        className="button"
        type="submit"
        aria-disabled={locked || undefined}
      >
        {text.button}
      </button>
    </form>
  );
}
