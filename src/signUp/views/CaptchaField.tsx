import { useEffect, useRef, useState, type RefObject } from 'react';
import ReCAPTCHA from 'react-google-recaptcha';
import type { SignUpActor } from './signUpActor';
import { whenIdleOrInteracted } from './whenIdle';

export interface CaptchaFieldProps {
  actorRef: SignUpActor;
  /** The form whose first interaction mounts the widget. */
  formRef: RefObject<HTMLFormElement | null>;
  siteKey: string;
  /** The captcha notice the machine shows, if any (R8.7). */
  error: string | undefined;
}

/**
 * The captcha box: Google's widget and the captcha-missing notice. The
 * widget tells the machine when it is solved or expires, and resets when the
 * machine says its token is spent (`captcha.reset`, R4.2).
 *
 * The widget (and with it Google's script) mounts on the first interaction
 * with the form or when the browser is idle, never on the critical path;
 * the prerendered page and its hydration show the empty, reserved box.
 */
export function CaptchaField({
  actorRef,
  formRef,
  siteKey,
  error,
}: CaptchaFieldProps) {
  const captchaRef = useRef<ReCAPTCHA>(null);
  useEffect(() => {
    const subscription = actorRef.on('captcha.reset', () =>
      captchaRef.current?.reset(),
    );
    return () => subscription.unsubscribe();
  }, [actorRef]);
  // Undefined: not mounted yet.
  const [size, setSize] = useState<'normal' | 'compact'>();
  useEffect(() => {
    const form = formRef.current;
    if (size || !form) return;
    return whenIdleOrInteracted(form, () =>
      setSize(
        // Google's widget is 304 px wide; below that it comes in its compact
        // size (the box's reserved height follows the same media query).
        window.matchMedia?.('(max-width: 379px)').matches
          ? 'compact'
          : 'normal',
      ),
    );
  }, [size, formRef]);
  const compact = size === 'compact';
  return (
    <div className="captcha" id="captcha" tabIndex={-1}>
      {error && (
        <p className="message message--notice" data-testid="notice-captcha">
          <span className="visually-hidden">Error: </span>
          {error}
        </p>
      )}
      <div
        className={
          compact ? 'captcha__box captcha__box--compact' : 'captcha__box'
        }
      >
        {size && (
          <ReCAPTCHA
            ref={captchaRef}
            sitekey={siteKey}
            size={size}
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
  );
}
