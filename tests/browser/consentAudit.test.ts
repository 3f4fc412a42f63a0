/**
 * What issue 23 ("Consent that stands up to an audit") must show in the
 * browser, in Chromium, Firefox and WebKit (one definition, run per engine
 * as tests/browser/engines.test.ts runs it):
 *
 * - Global Privacy Control (ADR-0073, ADR-0074), sent as
 *   `navigator.globalPrivacyControl` (an init script) and as `Sec-GPC: 1` (a
 *   request header, without the property): the tag stays out and the modal
 *   closed, even for `utm_source=google`; nothing is stored or recorded; the
 *   settings link shows and opens a modal that says the signal is honoured; an
 *   explicit Accept then loads the tag and is stored and recorded as usual. A
 *   choice stored under the current revision wins over the signal; an outdated
 *   one does not make the signal ask again.
 * - A revision bump (ADR-0067): a choice stored under an older revision is
 *   asked again, and the tag stays out until a new Accept. A choice stored
 *   without a revision (before revisions were stored) was made under revision
 *   1: on a page built with `CONSENT_REVISION=1` (the default, built here once
 *   for the file) it stands, even from `utm_source=google`; on the tests' page
 *   (revision 2) it is asked again.
 *
 * The consent signals' order (default before the tag, then each update) is
 * in engines.test.ts, "the ad networks' consent signals".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSENT_RECORD_PATH } from '../../contract/consentRecord';
import { buildTestPage } from '../../harness/page/buildPage';
import { TEST_CONSENT_REVISION } from '../../harness/page/paths';
import {
  startTestServer,
  type TestServer,
} from '../../harness/page/testServer';
import {
  googleConsentCommand,
  uetConsentCommand,
} from './support/consentCommands';
import type { EnginePage } from './support/engines/browser';
import { useEngine } from './support/engines/launch';
import { enginesUnderTest } from './support/engines/underTest';
import {
  openSignUpPage,
  using,
  waitFor,
  type VisitOptions,
} from './support/engines/visit';

const google = googleConsentCommand;
const uet = uetConsentCommand;

/** What the page holds of consent, read in the page (self-contained). */
function consentState() {
  const modal = document.querySelector(
    '[role="dialog"][data-testid="consent-modal"]',
  );
  return {
    modal: modal !== null,
    modalSays:
      modal?.querySelector('.consent__current')?.textContent?.trim() ?? null,
    settingsLink:
      document.querySelector('[data-testid="consent-settings"]') !== null,
    tag: document.querySelector('script[data-testid="tracking-tag"]') !== null,
    tagRuns: (window as { __tagRuns?: number }).__tagRuns ?? 0,
    tagSaw: JSON.parse(
      (window as { __tagSawConsent?: string }).__tagSawConsent ?? 'null',
    ) as unknown,
    dataLayer: (window.dataLayer ?? []).map((entry) =>
      Array.from(entry as ArrayLike<unknown>),
    ),
    uetq: window.uetq ?? [],
    gpcProperty: navigator.globalPrivacyControl === true,
    pageMarked: document.documentElement.hasAttribute('data-gpc'),
  };
}

/** The page's consent cookies, by name. */
async function consentCookies(page: EnginePage) {
  const cookies = await page.cookies();
  return Object.fromEntries(
    cookies
      .filter((cookie) => /^Vigil_(COOKIE_CONSENT|CONSENT_)/.test(cookie.name))
      .map((cookie) => [cookie.name, cookie.value]),
  );
}

/** Opens the modal with the settings link: what it says of the choice. */
async function settingsModalSays(page: EnginePage) {
  await page.click('[data-testid="consent-settings"]');
  await waitFor(
    page,
    () => document.querySelector('[data-testid="consent-modal"]') !== null,
  );
  return (await page.evaluate(consentState)).modalSays;
}

/**
 * Lets whatever the page would still do on its own (the modal's chunk
 * arriving, a tag loading) happen before a test says it did not.
 */
const settled = () => new Promise((resolve) => setTimeout(resolve, 500));

const SIGNAL_HONOURED =
  'Your browser sends a privacy signal (Global Privacy Control) asking sites not to share your data. We honour it: marketing cookies are rejected.';

/**
 * The tag out of the page, and the ad networks' defaults denied with no
 * update after them: no choice has granted anything (ADR-0066).
 */
const TAG_KEPT_OUT = {
  tag: false,
  tagRuns: 0,
  dataLayer: [google('default', 'denied')],
  uetq: uet('default', 'denied'),
};

let firstRevisionServer: Promise<TestServer> | undefined;

/**
 * The origin of the page built with `CONSENT_REVISION=1` (the default; the
 * tests' main pages have 2, ADR-0005), built the first time a test asks for it,
 * then served until the file ends.
 */
function firstRevisionOrigin(): Promise<string> {
  firstRevisionServer ??= (async () => {
    buildTestPage('firstRevision');
    return startTestServer({ build: 'firstRevision' });
  })();
  return firstRevisionServer.then((server) => server.origin);
}

afterAll(async () => {
  // A build that failed has failed its tests already: nothing to close.
  const server = await firstRevisionServer?.catch(() => undefined);
  await server?.close();
});

describe.each(enginesUnderTest())('%s', (engine) => {
  const suite = useEngine(engine);

  /**
   * Accepts in the open modal, which is the visitor's own choice: the tag
   * loads once, after the update granting consent was queued (ADR-0066), and
   * the choice is stored under the page's revision with a consent id
   * (ADR-0067, ADR-0068).
   */
  async function acceptLoadsTheTag(
    page: EnginePage,
    revision = TEST_CONSENT_REVISION,
  ) {
    await page.click('[data-testid="consent-accept"]');
    await expect
      .poll(() => page.evaluate(consentState))
      .toMatchObject({ modal: false, tag: true, tagRuns: 1 });
    expect((await page.evaluate(consentState)).tagSaw).toEqual({
      dataLayer: [google('default', 'denied'), google('update', 'granted')],
      uetq: [...uet('default', 'denied'), ...uet('update', 'granted')],
    });
    expect(suite.network.tagRequests()).toBe(1);
    const cookies = await consentCookies(page);
    expect(cookies).toMatchObject({
      Vigil_COOKIE_CONSENT: '1',
      Vigil_CONSENT_REVISION: String(revision),
    });
    expect(cookies.Vigil_CONSENT_ID).toMatch(/^[\da-f-]{36}$/);
  }

  /**
   * Opens `/signup` as the options say (on the tests' page, or on
   * `origin`), waits until `shown` is in the page, then lets the page
   * settle.
   */
  async function openShowing(
    options: VisitOptions,
    shown: string,
    origin = suite.server.origin,
  ) {
    const page = await openSignUpPage(suite, origin, options);
    await expect
      .poll(
        () =>
          page.evaluate(
            (css: string) => document.querySelector(css) !== null,
            shown,
          ),
        { timeout: 10_000 },
      )
      .toBe(true);
    await settled();
    return page;
  }

  /**
   * A stored accept that stands: the tag loads once and the settings link
   * shows, and the inline script's default already granted (ADR-0066), before
   * the tag ran, with no update after it.
   */
  async function expectStoredAcceptStands(page: EnginePage) {
    await expect
      .poll(() => page.evaluate(consentState))
      .toMatchObject({ tag: true, tagRuns: 1, settingsLink: true });
    expect((await page.evaluate(consentState)).tagSaw).toEqual({
      dataLayer: [google('default', 'granted')],
      uetq: uet('default', 'granted'),
    });
  }

  /** Proof-of-consent records that reached the service (ADR-0068). */
  const recordsSent = () =>
    suite.network.exchanges.filter(
      (exchange) =>
        exchange.method === 'POST' &&
        new URL(exchange.url).pathname === CONSENT_RECORD_PATH,
    ).length;

  describe('Global Privacy Control (issue 23, ADR-0073, ADR-0074)', () => {
    it.each(['property', 'header'] as const)(
      'sent as the %s: from google the modal stays closed and the tag out, nothing is stored; the settings link says the signal is honoured; an explicit Accept loads the tag',
      async (gpc) => {
        const page = await openShowing(
          {
            query: '?utm_source=google',
            gpc,
          },
          '[data-testid="consent-settings"]',
        );
        await using(page, async () => {
          const start = await page.evaluate(consentState);
          expect(start).toMatchObject({
            modal: false,
            settingsLink: true,
            ...TAG_KEPT_OUT,
          });
          // How the browser sent it: the property, or the header alone,
          // which the service answered with the page marked for it.
          expect({
            gpcProperty: start.gpcProperty,
            pageMarked: start.pageMarked,
          }).toEqual(
            gpc === 'property'
              ? { gpcProperty: true, pageMarked: false }
              : { gpcProperty: false, pageMarked: true },
          );
          if (gpc === 'header') {
            const answer = suite.network.exchanges.find(
              (exchange) => new URL(exchange.url).pathname === '/signup',
            );
            expect(answer?.headers['sec-gpc']).toBe('1');
            expect(String(answer?.response?.headers.vary)).toMatch(
              /(^|,)\s*sec-gpc\s*(,|$)/i,
            );
          }
          expect(suite.network.tagRequests()).toBe(0);
          // No cookie and no record for a choice the visitor did not make.
          await expect(consentCookies(page)).resolves.toEqual({});
          expect(recordsSent()).toBe(0);

          await expect(settingsModalSays(page)).resolves.toBe(SIGNAL_HONOURED);

          await acceptLoadsTheTag(page);
          await expect.poll(recordsSent).toBe(1);
        });
      },
    );

    it('a choice stored under the current revision wins over the signal', async () => {
      const page = await openSignUpPage(suite, suite.server.origin, {
        storedConsent: '1',
        gpc: 'property',
      });
      await using(page, async () => {
        await expectStoredAcceptStands(page);
        await expect(settingsModalSays(page)).resolves.toBe(
          'You have accepted marketing cookies.',
        );
      });
    });

    it('an outdated choice is not asked again under the signal: rejected, the tag out, the old cookies left as they were', async () => {
      const page = await openShowing(
        {
          storedConsent: '1',
          storedRevision: String(TEST_CONSENT_REVISION - 1),
          gpc: 'property',
        },
        '[data-testid="consent-settings"]',
      );
      await using(page, async () => {
        await expect(page.evaluate(consentState)).resolves.toMatchObject({
          modal: false,
          tag: false,
          dataLayer: [google('default', 'denied')],
        });
        expect(suite.network.tagRequests()).toBe(0);
        await expect(consentCookies(page)).resolves.toEqual({
          Vigil_COOKIE_CONSENT: '1',
          Vigil_CONSENT_REVISION: String(TEST_CONSENT_REVISION - 1),
        });
        expect(recordsSent()).toBe(0);
      });
    });
  });

  describe('a policy revision (issue 23, ADR-0067)', () => {
    /** A reject stored before revisions were: no revision cookie. */
    const rejectedWithoutRevision: VisitOptions = {
      query: '?utm_source=google',
      storedConsent: '0',
      storedRevision: null,
    };

    it.each([
      [
        'an accept under revision 1, without a campaign',
        {
          storedConsent: '1',
          storedRevision: String(TEST_CONSENT_REVISION - 1),
        },
      ],
      [
        'a reject stored without a revision (so under revision 1), from google',
        rejectedWithoutRevision,
      ],
    ])(
      'a revision bump asks again: %s; the tag stays out until a new Accept',
      async (_stored, options: VisitOptions) => {
        const page = await openShowing(
          options,
          '[data-testid="consent-modal"]',
        );
        await using(page, async () => {
          await expect(page.evaluate(consentState)).resolves.toMatchObject({
            // Asked as a first visit is: no current choice, so no link.
            modalSays: null,
            settingsLink: false,
            ...TAG_KEPT_OUT,
          });
          expect(suite.network.tagRequests()).toBe(0);

          await acceptLoadsTheTag(page);
        });
      },
    );

    describe('on a page whose policy was never revised (revision 1)', () => {
      /** The page built with revision 1: the first engine's block builds it. */
      let firstRevision: string;
      beforeAll(async () => {
        firstRevision = await firstRevisionOrigin();
      });

      it('a reject stored without a revision stands, even from google: no modal, the settings link; an Accept there loads the tag', async () => {
        const page = await openShowing(
          rejectedWithoutRevision,
          '[data-testid="consent-settings"]',
          firstRevision,
        );
        await using(page, async () => {
          await expect(page.evaluate(consentState)).resolves.toMatchObject({
            modal: false,
            settingsLink: true,
            ...TAG_KEPT_OUT,
          });
          expect(suite.network.tagRequests()).toBe(0);
          // The stored choice is left as it was: nothing was chosen yet.
          await expect(consentCookies(page)).resolves.toEqual({
            Vigil_COOKIE_CONSENT: '0',
          });

          await expect(settingsModalSays(page)).resolves.toBe(
            'You have rejected marketing cookies.',
          );
          await acceptLoadsTheTag(page, 1);
          await expect.poll(recordsSent).toBe(1);
        });
      });

      it('an accept stored without a revision stands: the tag loads, and the inline script’s default already grants', async () => {
        const page = await openSignUpPage(suite, firstRevision, {
          storedConsent: '1',
          storedRevision: null,
        });
        await using(page, () => expectStoredAcceptStands(page));
      });
    });
  });
});
