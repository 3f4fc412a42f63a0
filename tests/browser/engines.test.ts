/**
 * The page in Chromium, Firefox and WebKit: one definition of these tests,
 * run once per engine (tests/browser/support/engines/: puppeteer-core for Chromium
 * and Firefox, WebdriverIO for WebKit, all three through the tests' proxy).
 * Each engine runs:
 *
 * - a keyboard-only sign-up; the error summary taking focus, its links,
 *   and focus while submitting;
 * - the consent modal's focus (the platform's modal dialog: the page
 *   behind never takes focus or a click) and the return of focus;
 * - reflow at 320 CSS px (WCAG 1.4.10), with axe-core there too;
 * - the cookies' attributes as that engine stores them (R9.1 to R9.5).
 *
 * The model-based paths of both machines, in the same engines, are
 * modelPaths.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { EnginePage, StoredCookie } from './support/engines/browser';
import {
  googleConsentCommand,
  uetConsentCommand,
} from './support/consentCommands';
import { useEngine } from './support/engines/launch';
import { enginesUnderTest } from './support/engines/underTest';
import {
  axeViolations,
  focusedName,
  horizontalOverflow,
  openSignUpPage,
  saveScreenshot,
  using,
  waitFor,
} from './support/engines/visit';
import { performSignUp, typeInto } from '../../harness/model/visitor';
import { signUpCases } from '../../harness/model/signUpModel';
import { TEST_COOKIE_DOMAIN } from '../../harness/page/paths';
import { DESKTOP, REFLOW, validEntry } from '../../harness/page/signUpPage';
import { startTestServer } from '../../harness/page/testServer';
import {
  browserVerdictScript,
  nodeVerdicts,
  verdictCases,
  type Verdict,
  type VerdictCase,
} from '../oracles/verdicts';

const DAY_SECONDS = 24 * 60 * 60;
const LOGIN_COOKIES = [
  'VigilLogin',
  'Vigil_WELCOME_MESSAGE',
  'Vigil_FIRST_SIGNIN',
];

function cookieNamed(cookies: StoredCookie[], name: string): StoredCookie {
  const cookie = cookies.find((c) => c.name === name);
  if (!cookie) {
    throw new Error(
      `no cookie ${name} in ${cookies.map((c) => c.name).join(', ')}`,
    );
  }
  return cookie;
}

function expectLifetime(cookie: StoredCookie, days: number) {
  const lifetime = (cookie.expires ?? 0) - Date.now() / 1000;
  expect(lifetime).toBeGreaterThan(days * DAY_SECONDS - 120);
  expect(lifetime).toBeLessThanOrEqual(days * DAY_SECONDS + 5);
}

/**
 * Focus moved by Tab (or Shift+Tab) in a modal dialog: each step lands
 * outside the document (in the browser's own UI), or on the next of the
 * dialog's controls in `order`, going round; never on the page behind.
 */
function expectCycle(seen: (string | undefined)[], order: string[]) {
  const inside = seen.filter((at) => at !== 'outside');
  expect(
    inside.filter((at) => at === undefined || !order.includes(at)),
  ).toEqual([]);
  inside.slice(1).forEach((at, index) => {
    const before = order.indexOf(inside[index] as string);
    expect(at).toBe(order[(before + 1) % order.length]);
  });
}

/** Fills the form with a valid entry by pointer and keyboard. */
async function fillValidForm(page: EnginePage) {
  const entry = validEntry();
  for (const field of ['name', 'email', 'url'] as const) {
    await typeInto(page, field, entry[field]);
  }
  await page.click('#signup-form input[name="tos"]');
  await page.click('[data-testid="fake-captcha"]');
  return entry;
}

describe.each(enginesUnderTest())('%s', (engine) => {
  const suite = useEngine(engine);

  describe('the ad networks’ consent signals (issue 23, ADR-0066)', () => {
    const google = googleConsentCommand;
    const uet = uetConsentCommand;
    /** The queues as plain JSON: dataLayer's Arguments objects as arrays. */
    function queues() {
      return {
        dataLayer: (window.dataLayer ?? []).map((entry) =>
          Array.from(entry as ArrayLike<unknown>),
        ),
        uetq: window.uetq ?? [],
        tagRuns: (window as { __tagRuns?: number }).__tagRuns ?? 0,
        tagSaw: (window as { __tagSawConsent?: string }).__tagSawConsent,
      };
    }

    it('default first, then the update before the tag runs, then denied on reject, in order', async () => {
      const page = await openSignUpPage(suite, suite.server.origin, {
        query: '?utm_source=google',
      });
      await using(page, async () => {
        await waitFor(
          page,
          () =>
            document.querySelector('[data-testid="consent-modal"]') !== null,
        );
        const before = await page.evaluate(queues);
        // The default is the first command of both queues.
        expect(before.dataLayer).toEqual([google('default', 'denied')]);
        expect(before.uetq).toEqual(uet('default', 'denied'));
        expect(before.tagRuns).toBe(0);
        expect(suite.network.tagRequests()).toBe(0);

        await page.click('[data-testid="consent-accept"]');
        await expect
          .poll(() => page.evaluate(queues))
          .toMatchObject({
            tagRuns: 1,
          });
        const accepted = await page.evaluate(queues);
        // When the tag ran, the update granting consent was already queued.
        expect(JSON.parse(accepted.tagSaw ?? 'null')).toEqual({
          dataLayer: [google('default', 'denied'), google('update', 'granted')],
          uetq: [...uet('default', 'denied'), ...uet('update', 'granted')],
        });

        await page.click('[data-testid="consent-settings"]');
        await page.click('[data-testid="consent-reject"]');
        await expect
          .poll(() => page.evaluate(queues))
          .toMatchObject({
            dataLayer: [
              google('default', 'denied'),
              google('update', 'granted'),
              google('update', 'denied'),
            ],
            uetq: [
              ...uet('default', 'denied'),
              ...uet('update', 'granted'),
              ...uet('update', 'denied'),
            ],
          });
      });
    });

    it('a stored accept is the default, before the tag runs', async () => {
      const page = await openSignUpPage(suite, suite.server.origin, {
        storedConsent: '1',
      });
      await using(page, async () => {
        await expect
          .poll(() => page.evaluate(queues))
          .toMatchObject({
            tagRuns: 1,
          });
        const seen = await page.evaluate(queues);
        expect(JSON.parse(seen.tagSaw ?? 'null')).toEqual({
          dataLayer: [google('default', 'granted')],
          uetq: uet('default', 'granted'),
        });
      });
    });
  });

  describe('keyboard and focus', () => {
    it('a keyboard alone signs up: Tab, typing, Space and Enter', async () => {
      const page = await openSignUpPage(suite, suite.server.origin);
      await using(page, async () => {
        const entry = validEntry();
        const tabTo = async (name: string) => {
          for (let presses = 0; presses < 12; presses += 1) {
            await page.press('Tab');
            if ((await focusedName(page)) === name) return;
          }
          throw new Error(`Tab never reached ${name}`);
        };
        await tabTo('name');
        await page.type(entry.name);
        await tabTo('email');
        await page.type(entry.email);
        await tabTo('url');
        await page.type(entry.url);
        await tabTo('tos');
        await page.press('Space');
        await tabTo('fake-captcha');
        await page.press('Space');
        await page.press('Tab');
        await expect(
          page.evaluate(() => document.activeElement?.getAttribute('type')),
        ).resolves.toBe('submit');
        await page.press('Enter');
        await expect.poll(() => page.url()).toBe(`${suite.server.origin}/`);
        expect(suite.network.signUps).toHaveLength(1);
      });
    });

    it('a failed submit moves focus to the error summary, whose links focus each field', async () => {
      const page = await openSignUpPage(suite, suite.server.origin);
      await using(page, async () => {
        await page.evaluate(() =>
          document
            .querySelector<HTMLElement>('#signup-form button[type="submit"]')
            ?.focus(),
        );
        await page.press('Enter');
        await expect.poll(() => focusedName(page)).toBe('error-summary');
        await expect(
          page.evaluate(
            () =>
              document.querySelector('.error-summary [role="alert"] h2')
                ?.textContent,
          ),
        ).resolves.toBe('There is a problem');
        await saveScreenshot(page, 'error-summary-desktop');
        await page.click('.error-summary a[href="#email"]');
        await expect.poll(() => focusedName(page)).toBe('email');
        await page.evaluate(() =>
          document
            .querySelector<HTMLElement>('.error-summary a[href="#tos"]')
            ?.focus(),
        );
        await page.press('Enter');
        await expect.poll(() => focusedName(page)).toBe('tos');
        expect(suite.network.signUps).toHaveLength(0);
      });
    });

    it('while submitting, focus stays on the pressed control; a server failure takes it to the message', async () => {
      const page = await openSignUpPage(suite, suite.server.origin);
      await using(page, async () => {
        const held = suite.network.holdSignUps();
        await fillValidForm(page);
        // Enter in the URL field submits the form with focus in that field.
        await page.click('#signup-form input[name="url"]');
        await page.press('Enter');
        await expect.poll(() => held.length).toBe(1);
        await expect(focusedName(page)).resolves.toBe('url');
        await expect(
          page.evaluate(
            () => document.querySelector('[role="status"]')?.textContent,
          ),
        ).resolves.toBe('Creating your account…');
        const rateLimited = signUpCases.find(
          (event) =>
            event.type === 'xstate.error.actor.submitSignUp' &&
            event.error.failure.kind === 'rateLimited',
        );
        if (!rateLimited) throw new Error('no rate-limit case');
        await performSignUp(page, held, rateLimited);
        await expect.poll(() => focusedName(page)).toBe('error-summary');
        await expect(
          page.evaluate(() =>
            document.activeElement?.getAttribute('data-testid'),
          ),
        ).resolves.toBe('error-rate-limit');
      });
    });

    it('the consent modal takes focus, keeps Tab out of the page, closes on Escape and gives focus back', async () => {
      const page = await openSignUpPage(suite, suite.server.origin, {
        storedConsent: '0',
      });
      await using(page, async () => {
        await page.evaluate(() =>
          document
            .querySelector<HTMLElement>('[data-testid="consent-settings"]')
            ?.focus(),
        );
        await page.press('Enter');
        await waitFor(
          page,
          () =>
            document.querySelector('[data-testid="consent-modal"]') !== null,
        );
        // Every element of the page behind that ever takes focus while the
        // modal is open (none may).
        await page.evaluate(() => {
          const seen: string[] = [];
          (window as { __pageFocus?: string[] }).__pageFocus = seen;
          document.addEventListener('focusin', (event) => {
            const target = event.target as Element;
            const modal = document.querySelector('dialog:modal');
            if (modal && document.querySelector('.page')?.contains(target)) {
              seen.push(target.id || target.tagName);
            }
          });
        });
        await expect(
          page.evaluate(() => {
            const dialog = document.querySelector('[role="dialog"]');
            const label = document.getElementById(
              dialog?.getAttribute('aria-labelledby') ?? '',
            );
            return [
              dialog?.tagName,
              dialog?.matches(':modal'),
              dialog?.getAttribute('aria-modal'),
              label?.textContent?.trim(),
            ];
          }),
        ).resolves.toEqual([
          'DIALOG',
          true,
          'true',
          'Marketing cookies on Vigil',
        ]);
        // Where focus is: `page: …` for an element of the page behind,
        // `outside` when the document has none (the browser's own UI has
        // it), else the dialog or one of its controls (test id or text).
        const focused = () =>
          page.evaluate(() => {
            const active = document.activeElement;
            if (active && document.querySelector('.page')?.contains(active)) {
              const name = active.getAttribute('data-testid') ?? active.id;
              return `page: ${name || active.tagName}`;
            }
            if (!active || active === document.body || !document.hasFocus()) {
              return 'outside';
            }
            return (
              active.getAttribute('data-testid') ?? active.textContent?.trim()
            );
          });
        const press = async (key: 'Tab' | 'Shift+Tab', times: number) => {
          const seen = [];
          for (let i = 0; i < times; i += 1) {
            await page.press(key);
            seen.push(await focused());
          }
          return seen;
        };
        await expect.poll(focused).toBe('consent-modal');
        const controls = [
          'consent-accept',
          'consent-reject',
          'Close and keep my choice',
        ];
        // Within the dialog, Tab and Shift+Tab go through its controls.
        await expect(press('Tab', 3)).resolves.toEqual(controls);
        await expect(press('Shift+Tab', 2)).resolves.toEqual(
          controls.slice(0, 2).reverse(),
        );
        // The page behind can neither be focused nor clicked: it is inert
        // while the dialog is modal, so hit testing passes over it.
        await expect(
          page.evaluate(() => {
            const targets = [
              ...document.querySelectorAll<HTMLElement>(
                '.page input, .page button',
              ),
            ];
            const hit = targets.filter((target) => {
              const box = target.getBoundingClientRect();
              const at = document.elementFromPoint(
                box.left + box.width / 2,
                box.top + box.height / 2,
              );
              return at !== null && target.contains(at);
            });
            targets[0]?.focus();
            return {
              targets: targets.length > 3,
              hit: hit.map((target) => target.id || target.tagName),
              focusTaken: targets.includes(
                document.activeElement as HTMLElement,
              ),
              focused: (window as { __pageFocus?: string[] }).__pageFocus,
            };
          }),
        ).resolves.toEqual({
          targets: true,
          hit: [],
          focusTaken: false,
          focused: [],
        });
        await page.press('Escape');
        await waitFor(
          page,
          () =>
            document.querySelector('[data-testid="consent-modal"]') === null,
        );
        await expect(focused()).resolves.toBe('page: consent-settings');
        const consent = cookieNamed(
          await page.cookies(),
          'Vigil_COOKIE_CONSENT',
        );
        expect(consent.value).toBe('0');
        // Opened again from the settings link, which has focus back.
        await page.press('Enter');
        await expect.poll(focused).toBe('consent-modal');
        await expect(press('Tab', 3)).resolves.toEqual(controls);
        // Past its first or last control, the platform's modal dialog
        // lets the browser take focus into its own UI (Chromium, Firefox)
        // or goes round (WebKit), where the hand-written trap this
        // replaced always went round: the page behind is inert (HTML,
        // "blocked by a modal dialog"), so focus never lands on it. Firefox
        // keeps it in its UI while the test presses keys; the others come
        // back into the dialog, at its other end.
        expectCycle(await press('Tab', 4), controls);
        expectCycle(await press('Shift+Tab', 4), [...controls].reverse());
        await expect(
          page.evaluate(
            () => (window as { __pageFocus?: string[] }).__pageFocus,
          ),
        ).resolves.toEqual([]);
      });
    });
  });

  describe('before the app script runs (ADR-0034)', () => {
    it('what is typed and ticked survives hydration, and a submit made before it is carried out', async () => {
      // An origin no other test loads, so the app script is not in the
      // engine's cache and must come over the held network.
      const origin = suite.server.origin.replace('localhost', '127.0.0.1');
      suite.network.reset();
      const scripts = suite.network.holdPageScripts();
      const page = await suite.browser.newPage(DESKTOP);
      await using(page, async () => {
        await page.goto(`${origin}/`);
        // Not goto: its wait for the load event could wait on the held script.
        await page.evaluate((url: string) => {
          setTimeout(() => location.assign(url), 0);
        }, `${origin}/signup`);
        // Asked of the network, not the page: a script sent to the page
        // while it changes documents may never answer (WebKit). Once the new
        // document asks for its script, it is the one the page shows.
        await expect
          .poll(() => scripts.waiting(), { timeout: 10_000 })
          .toBeGreaterThan(0);
        await waitFor(
          page,
          () =>
            location.pathname === '/signup' &&
            document.getElementById('signup-form') !== null,
        );
        await typeInto(page, 'name', 'Ada Lovelace');
        await typeInto(page, 'email', 'ada@');
        await page.click('#signup-form input[name="tos"]');
        await page.click('#signup-form button[type="submit"]');
        const appHasRun = () =>
          document.querySelector('[data-testid="fake-captcha"]') !== null;
        await expect(page.evaluate(appHasRun)).resolves.toBe(false);
        await expect(page.url()).resolves.toBe(`${origin}/signup`);
        scripts.release();
        await waitFor(page, appHasRun);
        await expect.poll(() => focusedName(page)).toBe('error-summary');
        await expect(
          page.evaluate(() => {
            const input = (name: string) =>
              document.querySelector<HTMLInputElement>(
                `#signup-form input[name="${name}"]`,
              );
            return {
              name: input('name')?.value,
              email: input('email')?.value,
              tos: input('tos')?.checked,
              errors: [
                ...document.querySelectorAll(
                  '.field__error, [data-testid="notice-captcha"]',
                ),
              ].map((node) => node.id || node.getAttribute('data-testid')),
            };
          }),
        ).resolves.toEqual({
          name: 'Ada Lovelace',
          email: 'ada@',
          tos: true,
          errors: ['email-error', 'url-error', 'notice-captcha'],
        });
        await expect(page.url()).resolves.toBe(`${origin}/signup`);
        expect(suite.network.signUps).toHaveLength(0);
      });
    });
  });

  describe('reflow at 320 CSS px (WCAG 1.4.10)', () => {
    it('with every error shown: no sideways scrolling, the compact captcha, no axe violation', async () => {
      const page = await openSignUpPage(suite, suite.server.origin, {
        viewport: REFLOW,
      });
      await using(page, async () => {
        // The viewport; a classic scrollbar (Firefox, WebKitGTK) takes its
        // width from the layout, which must fit what is left.
        await expect(page.evaluate(() => window.innerWidth)).resolves.toBe(
          REFLOW.width,
        );
        await page.click('#signup-form button[type="submit"]');
        await waitFor(
          page,
          () => document.querySelector('#error-summary') !== null,
        );
        await expect(page.evaluate(horizontalOverflow)).resolves.toEqual({
          scrolls: false,
          outside: [],
        });
        // Google's compact size, 164 × 144, under 380 px.
        await expect(
          page.evaluate(() => {
            const box = document
              .querySelector('[data-testid="fake-captcha"]')
              ?.closest('label')
              ?.getBoundingClientRect();
            return box && [box.width, box.height];
          }),
        ).resolves.toEqual([164, 144]);
        await expect(axeViolations(page)).resolves.toEqual([]);
        await saveScreenshot(page, 'error-summary-320');
      });
    });

    it('with the consent modal open: no sideways scrolling, no axe violation', async () => {
      const page = await openSignUpPage(suite, suite.server.origin, {
        viewport: REFLOW,
        query: '?utm_source=google',
      });
      await using(page, async () => {
        await waitFor(
          page,
          () =>
            document.querySelector('[data-testid="consent-modal"]') !== null,
        );
        await expect(page.evaluate(horizontalOverflow)).resolves.toEqual({
          scrolls: false,
          outside: [],
        });
        await expect(axeViolations(page)).resolves.toEqual([]);
        await saveScreenshot(page, 'consent-modal-320');
      });
    });
  });

  describe('cookies as the engine stores them (R9.1 to R9.5)', () => {
    it('on localhost: the login cookies are host-only, SameSite=Strict, not Secure, 365 days', async () => {
      const page = await openSignUpPage(suite, suite.server.origin);
      suite.network.keepLoginCookies();
      await using(page, async () => {
        await fillValidForm(page);
        await page.click('#signup-form button[type="submit"]');
        await expect.poll(() => page.url()).toBe(`${suite.server.origin}/`);
        const cookies = await page.cookies();
        const login = cookieNamed(cookies, 'VigilLogin');
        expect(
          Object.keys(JSON.parse(decodeURIComponent(login.value))),
        ).toEqual(['VigilToken', 'VigilSID']);
        for (const name of LOGIN_COOKIES) {
          const cookie = cookieNamed(cookies, name);
          expect(cookie).toMatchObject({
            domain: 'localhost',
            path: '/',
            secure: false,
            httpOnly: false,
            sameSite: 'Strict',
          });
          expectLifetime(cookie, 365);
        }
      });
    });

    it('on the product domain over HTTPS: consent and campaign Secure and domain-wide; reject deletes the tag’s parent-domain cookies', async () => {
      const productHost = await startTestServer({ https: true });
      try {
        const page = await openSignUpPage(suite, productHost.origin, {
          query: '?utm_source=google&utm_campaign=autumn',
        });
        await using(page, async () => {
          // The modal's chunk arrives once it opens (ADR-0064): click what
          // shows.
          await waitFor(
            page,
            () =>
              document.querySelector('[data-testid="consent-accept"]') !== null,
          );
          await page.click('[data-testid="consent-accept"]');
          await expect
            .poll(
              async () =>
                (await page.cookies()).filter(
                  (c) =>
                    c.domain === TEST_COOKIE_DOMAIN && c.name.startsWith('_'),
                ).length,
            )
            .toBe(3);
          const cookies = await page.cookies();
          const consent = cookieNamed(cookies, 'Vigil_COOKIE_CONSENT');
          expect(consent).toMatchObject({
            value: '1',
            domain: TEST_COOKIE_DOMAIN,
            secure: true,
            sameSite: 'Strict',
            path: '/',
          });
          expectLifetime(consent, 365);
          const campaign = cookieNamed(cookies, 'Vigil_CAMPAIGN');
          expect(campaign).toMatchObject({
            value: 'autumn',
            domain: TEST_COOKIE_DOMAIN,
            secure: true,
            sameSite: 'Strict',
            path: '/',
          });
          expectLifetime(campaign, 30);

          await page.click('[data-testid="consent-settings"]');
          await page.click('[data-testid="consent-reject"]');
          await expect
            .poll(async () =>
              (await page.cookies()).map((c) => `${c.name}@${c.domain}`).sort(),
            )
            .toEqual([
              `Vigil_CAMPAIGN@${TEST_COOKIE_DOMAIN}`,
              // Issue 23 (ADR-0067, ADR-0068): with the consent cookie's
              // attributes.
              `Vigil_CONSENT_ID@${TEST_COOKIE_DOMAIN}`,
              `Vigil_CONSENT_REVISION@${TEST_COOKIE_DOMAIN}`,
              `Vigil_COOKIE_CONSENT@${TEST_COOKIE_DOMAIN}`,
            ]);
        });
      } finally {
        await productHost.close();
      }
    });
  });
  describe('one verdict (docs/url-and-email-rules.md)', () => {
    it('gives the verdict Node gives on every WPT URL, host and e-mail', async () => {
      const cases = verdictCases();
      const expected = nodeVerdicts(cases);
      const script = await browserVerdictScript();
      const page = await suite.browser.newPage({ width: 800, height: 600 });
      await using(page, async () => {
        await page.goto(`${suite.server.origin}/`);
        await page.runScript(script);
        const verdicts = await page.evaluate(
          (all: VerdictCase[]) =>
            (
              window as unknown as {
                __vigilVerdicts: (cases: VerdictCase[]) => Verdict[];
              }
            ).__vigilVerdicts(all),
          cases,
        );
        // Field by field: WebDriver does not keep an object's key order.
        const same = (a: Verdict, b: Verdict | undefined) =>
          a.input === b?.input &&
          a.kind === b.kind &&
          a.ok === b.ok &&
          a.message === b.message;
        const disagreements = verdicts.filter(
          (verdict, index) => !same(verdict, expected[index]),
        );
        const count = (source: string) =>
          cases.filter((c) => c.source === source).length;
        console.log(
          `WPT verdicts: ${count('urltestdata')} URL inputs, ${count('toascii host')} hosts, ${count('email-validity')} e-mails, ${count('unicode edge')} Unicode edges, ${disagreements.length} disagreements (${engine})`,
        );
        expect(verdicts).toHaveLength(cases.length);
        expect(disagreements).toEqual([]);
      });
    });
  });
});
