/**
 * What the visitor sees, as plain data, so that the UI level (jsdom) and the
 * browser level (every engine) compare the page against the reference the
 * same way: `read…View()` reads the page through the test selectors of
 * docs/contract.md, and `expected…View(expectation)` says what the
 * hand-written reference's state must look like (./reference.ts), in the
 * words docs/contract.md gives each message.
 *
 * The readers run inside the page too (Playwright's `page.evaluate`), so
 * they are self-contained: no imports, no helpers from outside.
 */
import {
  failureKind,
  CONSENT_STATES,
  SIGN_UP_STATES,
  type ConsentExpectation,
  type ErrorReason,
  type FormField,
  type SignUpExpectation,
} from './reference';

export interface SignUpView {
  values: {
    name: string;
    email: string;
    url: string;
    newsletter: boolean;
    tos: boolean;
  };
  /** Field → the error's text, without its visually hidden "Error:" prefix. */
  errors: Record<string, string>;
  /** The captcha notice's text, or null when not shown. */
  captchaNotice: string | null;
  general: boolean;
  rateLimit: boolean;
  /**
   * Whether each of name, email, url, newsletter, tos and submit is disabled
   * (`disabled`, or `aria-disabled="true"`, which keeps focus where it is).
   */
  disabled: boolean[];
  /** The error summary's links, or its message; null when not shown. */
  summary: string[] | null;
  /** Whether the captcha widget is ticked (it holds an unspent token). */
  captchaTicked: boolean;
  /** The submit button's text. */
  button: string;
}

export function readSignUpView(): SignUpView {
  const input = (name: string) =>
    document.querySelector<HTMLInputElement>(
      `#signup-form input[name="${name}"]`,
    );
  const text = (element: Element | null) =>
    element?.textContent?.replace(/^Error:\s*/, '').trim() ?? null;
  const shown = (selector: string) => {
    const element = document.querySelector<HTMLElement>(selector);
    return element !== null && !element.hidden;
  };
  const errors: Record<string, string> = {};
  for (const field of ['name', 'email', 'url', 'tos']) {
    const message = text(document.getElementById(`${field}-error`));
    if (message !== null) {
      errors[field] = message;
      // A shown error is announced with its field (docs/contract.md).
      const describedBy = input(field)?.getAttribute('aria-describedby') ?? '';
      if (!describedBy.split(' ').includes(`${field}-error`)) {
        errors[field] = `${message} (not in aria-describedby)`;
      }
    }
  }
  const captcha = document.querySelector<HTMLInputElement>(
    '[data-testid="fake-captcha"]',
  );
  return {
    values: {
      name: input('name')?.value ?? '',
      email: input('email')?.value ?? '',
      url: input('url')?.value ?? '',
      newsletter: input('newsletter')?.checked ?? false,
      tos: input('tos')?.checked ?? false,
    },
    errors,
    captchaNotice: text(
      document.querySelector('[data-testid="notice-captcha"]'),
    ),
    general: shown('[data-testid="error-general"]'),
    rateLimit: shown('[data-testid="error-rate-limit"]'),
    disabled: [
      ...['name', 'email', 'url', 'newsletter', 'tos'].map((name) =>
        input(name),
      ),
      document.querySelector<HTMLButtonElement>(
        '#signup-form button[type="submit"]',
      ),
    ].map(
      (control) =>
        control !== null &&
        (control.disabled || control.getAttribute('aria-disabled') === 'true'),
    ),
    summary: (() => {
      const box = document.querySelector('.error-summary');
      if (!box) return null;
      const links = [...box.querySelectorAll('li')];
      return links.length > 0
        ? links.map((li) => li.textContent?.trim() ?? '')
        : [box.querySelector('p')?.textContent?.trim() ?? ''];
    })(),
    captchaTicked: captcha?.checked ?? false,
    button:
      document
        .querySelector('#signup-form button[type="submit"]')
        ?.textContent?.trim() ?? '',
  };
}

/** Each field's message for each reason (R5, R8.2, ADR-0019, ADR-0059). */
const FIELD_MESSAGES: Record<
  FormField,
  Partial<Record<ErrorReason, string>>
> = {
  name: {
    required: 'Enter your name',
    refused:
      'Enter your name as plain text, up to 200 characters, without web addresses or HTML',
  },
  email: {
    required: 'Enter your email address',
    invalid:
      'Enter an email address in the correct format, like name@example.com',
  },
  url: {
    required: 'Enter the address of the website to monitor, like example.com',
    invalid: 'Enter a website address in the correct format, like example.com',
    local:
      'Enter the public address of your website, like example.com – localhost cannot be reached from the internet',
    unchecked:
      'Check your internet connection and submit again – the website address could not be checked',
  },
  tos: { required: 'Agree to the terms of service to create your account' },
  captcha: { required: 'Tick “I’m not a robot” to show you are a person' },
};

const messageOf = (field: FormField, reason: ErrorReason): string => {
  const message = FIELD_MESSAGES[field][reason];
  if (message === undefined)
    throw new Error(`no message for ${field} ${reason}`);
  return message;
};

/** The view the reference's state calls for (R4.1 to R4.6, R8.1 to R8.7). */
export function expectedSignUpView(expected: SignUpExpectation): SignUpView {
  const order = ['name', 'email', 'url', 'tos', 'captcha'] as const;
  const messages = order.flatMap((field) => {
    const reason = expected.errors[field];
    return reason === undefined ? [] : [[field, messageOf(field, reason)]];
  });
  const { captcha, ...fieldErrors } = Object.fromEntries(messages) as Record<
    string,
    string
  >;
  const kind = failureKind(expected.state);
  // R4.1, ADR-0020: every control locked while the state says so.
  const { locked, button } = SIGN_UP_STATES[expected.state];
  return {
    values: { ...expected.values },
    errors: fieldErrors,
    captchaNotice: captcha ?? null,
    // R8.3; ADR-0043: an e-mail address in use shows in the general area too.
    general: kind === 'general' || kind === 'emailInUse',
    rateLimit: kind === 'rateLimited',
    disabled: Array<boolean>(6).fill(locked),
    captchaTicked: expected.captcha,
    button,
    // GOV.UK: a summary of every error, or the server's one failure.
    summary:
      kind === 'general' || kind === 'emailInUse' || kind === 'rateLimited'
        ? [FAILURE_TEXT[kind]]
        : messages.length > 0
          ? messages.map(([, message]) => message as string)
          : null,
  };
}

/** The texts of the message areas (R8.1, R8.3, ADR-0043). */
const FAILURE_TEXT = {
  general:
    'Your account was not created: something went wrong on our side or on the way. Check your details and try again in a moment.',
  emailInUse:
    'There is already an account with this email address. Sign in to it instead, or use a different email address.',
  rateLimited:
    'We have received too many sign-ups from your network. Wait 15 minutes, then try again.',
} as const;

export interface ConsentView {
  modal: boolean;
  /** The modal's "You have … marketing cookies." line, when shown. */
  currentChoice: string | null;
  settingsLink: boolean;
  tag: boolean;
  /** The `Vigil_COOKIE_CONSENT` cookie's value, or null. */
  cookie: string | null;
  /**
   * The ad networks' consent now (ADR-0066): the last Consent Mode command on
   * `dataLayer` (its four types, one value, or `mixed`) and the last UET
   * `ad_storage` on `uetq`, as `google/uet`; `none` for a queue without one.
   */
  adSignals: string;
}

export function readConsentView(): ConsentView {
  const modal = document.querySelector(
    '[role="dialog"][data-testid="consent-modal"]',
  );
  const cookie = document.cookie
    .split('; ')
    .find((pair) => pair.startsWith('Vigil_COOKIE_CONSENT='));
  return {
    modal: modal !== null,
    currentChoice:
      modal?.querySelector('.consent__current')?.textContent?.trim() ?? null,
    settingsLink:
      document.querySelector('[data-testid="consent-settings"]') !== null,
    tag: document.querySelector('script[data-testid="tracking-tag"]') !== null,
    cookie: cookie ? cookie.slice('Vigil_COOKIE_CONSENT='.length) : null,
    adSignals: (() => {
      // Self-contained: browser tests run this function in the page.
      const queues = window as { dataLayer?: unknown[]; uetq?: unknown[] };
      const google = (queues.dataLayer ?? [])
        .map((entry) => Array.from(entry as ArrayLike<unknown>))
        .filter((command) => command[0] === 'consent')
        .at(-1)?.[2] as Record<string, unknown> | undefined;
      const values = new Set(Object.values(google ?? {}));
      const googleValue = !google
        ? 'none'
        : Object.keys(google).length === 4 && values.size === 1
          ? String([...values][0])
          : 'mixed';
      const uet = queues.uetq ?? [];
      let uetValue = 'none';
      for (let i = 0; i + 2 < uet.length; i += 1) {
        if (uet[i] === 'consent') {
          uetValue = String(
            (uet[i + 2] as { ad_storage?: unknown }).ad_storage,
          );
        }
      }
      return `${googleValue}/${uetValue}`;
    })(),
  };
}

/** What the modal says of a rejection the browser's signal made (ADR-0073). */
const SIGNAL_HONOURED_TEXT =
  'Your browser sends a privacy signal (Global Privacy Control) asking sites not to share your data. We honour it: marketing cookies are rejected.';

/**
 * The view the consent reference's state calls for (R4.7 to R4.11, ADR-0066,
 * ADR-0073).
 *
 * @param storedCookie the consent cookie the visit started with
 */
export function expectedConsentView(
  expected: ConsentExpectation,
  storedCookie: string | null,
): ConsentView {
  const { state: choice, modalOpen: modal, bySignal } = expected;
  const row = CONSENT_STATES[choice];
  return {
    modal,
    currentChoice:
      modal && choice !== 'unset'
        ? bySignal
          ? SIGNAL_HONOURED_TEXT
          : `You have ${choice} marketing cookies.`
        : null,
    settingsLink: row.settingsLink,
    tag: row.tag,
    // ADR-0073: the browser's signal rejects without writing a cookie; no
    // choice keeps the one the visit started with.
    cookie: bySignal ? storedCookie : (row.cookie ?? storedCookie),
    // Issue 23: denied by default, granted by a stored or a new accept,
    // denied again by a reject.
    adSignals: choice === 'accepted' ? 'granted/granted' : 'denied/denied',
  };
}
