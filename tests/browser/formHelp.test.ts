/**
 * Issue 22's help for every visitor, in Chromium, Firefox and WebKit
 * (tests/browser/support/engines/: one definition run per engine, against
 * the built page and the local service):
 *
 * - the e-mail typo suggestion (ADR-0054): a misspelt common domain shows "Did
 *   you mean …?" in a polite live region after the field loses focus and
 *   on submit (axe-core finds nothing while it shows); its button applies it; ignored, the sign-up goes through
 *   with the address as typed;
 * - the draft (ADR-0055): name, e-mail, URL and both boxes come back after a
 *   reload, the captcha does not (its token is never stored); a new link's
 *   prefill wins over the draft; the draft is gone after the sign-up;
 * - the mobile keyboard attributes (ADR-0056): `enterkeyhint` (`next`, then
 *   `go` on the last input), `autocomplete`, `autocapitalize`,
 *   `spellcheck` and `inputmode`.
 *
 * The expectations are the issue's words, not the page's output.
 */
import { describe, expect, it } from 'vitest';
import type { Engine } from '../../harness/engines';
import type { EnginePage } from './support/engines/browser';
import { useEngine } from './support/engines/launch';
import { enginesUnderTest } from './support/engines/underTest';
import {
  axeViolations,
  focusedName,
  openSignUpPage,
  using,
  waitFor,
} from './support/engines/visit';
import { typeInto } from '../../harness/model/visitor';

const DRAFT_KEY = 'Vigil_SIGNUP_DRAFT';
/**
 * How long a page may take to show what is awaited, a limit for a hang:
 * the browser projects' own (vitest.config.ts). At 10 s, WebKit's move to
 * `/` after a sign-up outlasted it once in `test:engines`, two files at a
 * time on a loaded machine.
 */
const POLL = { timeout: 15_000 };

/** An address no earlier run has signed up with (ADR-0043: one account each). */
function freshAddress(engine: Engine, domain: string): string {
  return `ada.${engine}.${Date.now().toString(36)}@${domain}`;
}

/** The suggestion's text, whitespace collapsed; null when none is shown. */
const suggestionText = (page: EnginePage) =>
  page.evaluate(() => {
    const element = document.querySelector('[data-testid="email-suggestion"]');
    return element
      ? (element.textContent ?? '').replace(/\s+/g, ' ').trim()
      : null;
  });

/** The form as the visitor sees it. */
const formState = (page: EnginePage) =>
  page.evaluate(() => {
    const input = (name: string) =>
      document.querySelector<HTMLInputElement>(
        `#signup-form input[name="${name}"]`,
      );
    return {
      name: input('name')?.value,
      email: input('email')?.value,
      url: input('url')?.value,
      newsletter: input('newsletter')?.checked,
      tos: input('tos')?.checked,
      captcha:
        document.querySelector<HTMLInputElement>('[data-testid="fake-captcha"]')
          ?.checked ?? null,
    };
  });

const storedDraft = (page: EnginePage) =>
  page.evaluate((key: string) => window.sessionStorage.getItem(key), DRAFT_KEY);

describe.each(enginesUnderTest())('%s', (engine) => {
  const suite = useEngine(engine);

  describe('the e-mail typo suggestion (ADR-0054)', () => {
    it('shows after the field loses focus, in a polite live region, and applies', async () => {
      const page = await openSignUpPage(suite, suite.server.origin);
      await using(page, async () => {
        await typeInto(page, 'email', 'ada@gmial.com');
        await expect(suggestionText(page)).resolves.toBeNull();
        await page.press('Tab');
        await expect
          .poll(() => suggestionText(page), POLL)
          .toMatch(/^Did you mean ada@gmail\.com\?/);
        await expect(
          page.evaluate(
            () =>
              document
                .querySelector('[data-testid="email-suggestion"]')
                ?.closest('[aria-live]')
                ?.getAttribute('aria-live') ?? null,
          ),
        ).resolves.toBe('polite');
        // Advice, not an error: the field is not marked invalid.
        await expect(
          page.evaluate(() =>
            document.getElementById('email')?.getAttribute('aria-invalid'),
          ),
        ).resolves.toBeNull();
        await expect(axeViolations(page)).resolves.toEqual([]);

        await page.click(
          '[data-testid="email-suggestion"] .email-suggestion__apply',
        );
        await expect
          .poll(() => formState(page).then((form) => form.email), POLL)
          .toBe('ada@gmail.com');
        await expect(suggestionText(page)).resolves.toBeNull();
        await expect(focusedName(page)).resolves.toBe('email');
      });
    });

    it('shows on submit, and ignored, the sign-up goes through as typed', async () => {
      const { origin } = suite.server;
      const page = await openSignUpPage(suite, origin);
      await using(page, async () => {
        const typed = freshAddress(engine, 'gmial.com');
        await typeInto(page, 'email', typed);
        await page.press('Enter');
        await expect
          .poll(() => suggestionText(page), POLL)
          .toMatch(
            new RegExp(
              `^Did you mean ${typed.replace('gmial.com', 'gmail.com').replace(/\./g, '\\.')}\\?`,
            ),
          );

        await typeInto(page, 'name', 'Ada Lovelace');
        await typeInto(page, 'url', 'ada.example');
        await page.click('#signup-form input[name="tos"]');
        await page.click('[data-testid="fake-captcha"]');
        await page.click('#signup-form button[type="submit"]');
        await expect.poll(() => page.url(), POLL).toBe(`${origin}/`);
        expect(suite.network.signUps).toHaveLength(1);
        expect(
          new URLSearchParams(suite.network.signUps[0]?.body).get('email'),
        ).toBe(typed);
      });
    });
  });

  describe('one press of "Create account" while the suggestion appears (ADR-0054)', () => {
    /** What the form shows after a submit with errors (R4.4, R8.1). */
    const errorsShown = (page: EnginePage) =>
      page.evaluate(() => {
        const visible = (css: string) => {
          const element = document.querySelector<HTMLElement>(css);
          return element !== null && element.getClientRects().length > 0;
        };
        return {
          nameError: visible('#name-error'),
          summary: visible('#error-summary'),
        };
      });

    // Each is a typo the suggestion corrects, and each blurs the field
    // with the button's press: the advice appears above the button.
    it.each(['a@example..com', 'a@example.com.', '<a@example.com>'])(
      'with %s typed and the rest empty, one click shows the errors, and the suggestion',
      async (typed) => {
        const page = await openSignUpPage(suite, suite.server.origin);
        await using(page, async () => {
          // The form's help has arrived (it comes after the first paint):
          // a suggestion shows on the keyboard's blur.
          await typeInto(page, 'email', 'ada@gmial.com');
          await page.press('Tab');
          await expect
            .poll(() => suggestionText(page), POLL)
            .toMatch(/^Did you mean/);
          await typeInto(page, 'email', typed);
          await expect(suggestionText(page)).resolves.toBeNull();

          // Move, press, release: the press blurs the e-mail field.
          await page.click('#signup-form button[type="submit"]');
          await expect
            .poll(() => errorsShown(page), POLL)
            .toEqual({ nameError: true, summary: true });
          await expect
            .poll(() => suggestionText(page), POLL)
            .toMatch(/^Did you mean /);
          expect(suite.network.signUps).toHaveLength(0);
        });
      },
    );
  });

  describe('the draft (ADR-0055)', () => {
    it('comes back after a reload without the captcha, and is gone after the sign-up', async () => {
      const { origin } = suite.server;
      const page = await openSignUpPage(suite, origin);
      await using(page, async () => {
        const email = freshAddress(engine, 'example.com');
        await typeInto(page, 'name', 'Ada Lovelace');
        await typeInto(page, 'email', email);
        await typeInto(page, 'url', 'ada.example');
        await page.click('#signup-form input[name="newsletter"]');
        await page.click('#signup-form input[name="tos"]');
        await page.click('[data-testid="fake-captcha"]');
        const typed = {
          name: 'Ada Lovelace',
          email,
          url: 'ada.example',
          newsletter: true,
          tos: true,
        };
        await expect
          .poll(() => formState(page), POLL)
          .toEqual({ ...typed, captcha: true });
        // The token is never stored: the draft is the five values.
        await expect
          .poll(
            async () =>
              JSON.parse((await storedDraft(page)) ?? 'null') as unknown,
            POLL,
          )
          .toEqual(typed);

        await page.reload();
        await waitFor(
          page,
          () => document.querySelector('[data-testid="fake-captcha"]') !== null,
        );
        await expect
          .poll(() => formState(page), POLL)
          .toEqual({ ...typed, captcha: false });

        await page.click('[data-testid="fake-captcha"]');
        await page.click('#signup-form button[type="submit"]');
        await expect.poll(() => page.url(), POLL).toBe(`${origin}/`);
        expect(
          new URLSearchParams(suite.network.signUps[0]?.body).get('email'),
        ).toBe(email);
        await expect(storedDraft(page)).resolves.toBeNull();
        await page.goto(`${origin}/signup`);
        await waitFor(
          page,
          () => document.querySelector('[data-testid="fake-captcha"]') !== null,
        );
        await expect(formState(page)).resolves.toEqual({
          name: '',
          email: '',
          url: '',
          newsletter: false,
          tos: false,
          captcha: false,
        });
      });
    });

    it("a new link's prefill wins over the draft", async () => {
      const { origin } = suite.server;
      const page = await openSignUpPage(suite, origin);
      await using(page, async () => {
        await typeInto(page, 'name', 'Ada Lovelace');
        await typeInto(page, 'email', 'ada@example.com');
        await expect
          .poll(() => storedDraft(page), POLL)
          .toContain('ada@example.com');
        await page.goto(`${origin}/signup?email=grace%40example.com`);
        await waitFor(
          page,
          () => document.querySelector('[data-testid="fake-captcha"]') !== null,
        );
        await expect
          .poll(() => formState(page), POLL)
          .toMatchObject({ name: 'Ada Lovelace', email: 'grace@example.com' });
      });
    });
  });

  it('the inputs tell mobile keyboards what they take (ADR-0056)', async () => {
    const page = await openSignUpPage(suite, suite.server.origin);
    await using(page, async () => {
      await expect(
        page.evaluate(() =>
          ['name', 'email', 'url'].map((name) => {
            const input = document.querySelector(
              `#signup-form input[name="${name}"]`,
            );
            return Object.fromEntries(
              [
                'enterkeyhint',
                'autocomplete',
                'autocapitalize',
                'spellcheck',
                'inputmode',
                'type',
              ].map((attribute) => [attribute, input?.getAttribute(attribute)]),
            );
          }),
        ),
      ).resolves.toEqual([
        {
          enterkeyhint: 'next',
          autocomplete: 'name',
          autocapitalize: 'words',
          spellcheck: null,
          inputmode: null,
          type: null,
        },
        {
          enterkeyhint: 'next',
          autocomplete: 'email',
          autocapitalize: 'none',
          spellcheck: 'false',
          inputmode: null,
          type: 'email',
        },
        {
          enterkeyhint: 'go',
          autocomplete: 'url',
          autocapitalize: 'none',
          spellcheck: 'false',
          inputmode: 'url',
          type: 'text',
        },
      ]);
    });
  });
});
