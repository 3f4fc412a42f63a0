/**
 * Chromium and Firefox through puppeteer-core: Chromium over the DevTools
 * protocol, Firefox ESR over WebDriver BiDi. Each page gets its own browser
 * context (no cookies shared between tests).
 */
import puppeteer, {
  ProtocolError,
  type Browser,
  type Cookie,
  type KeyInput,
  type Page,
} from 'puppeteer-core';
import { CHROMIUM_FLAGS } from '../../../../harness/engines';
import type {
  EngineBrowser,
  EnginePage,
  Key,
  StoredCookie,
  Viewport,
} from './browser';
import { findEngine } from '../../../../harness/engines';

/**
 * @param engine `chromium` or `firefox`
 * @param proxyPort the tests' proxy on 127.0.0.1 (./network.ts)
 */
export async function launchPuppeteerEngine(
  engine: 'chromium' | 'firefox',
  proxyPort: number,
): Promise<EngineBrowser> {
  const proxy = `127.0.0.1:${proxyPort}`;
  const { executable } = findEngine(engine);
  const browser: Browser =
    engine === 'chromium'
      ? await puppeteer.launch({
          browser: 'chrome',
          executablePath: executable,
          headless: true,
          // The proxy's certificates come from its throwaway CA.
          acceptInsecureCerts: true,
          args: [
            ...CHROMIUM_FLAGS,
            `--proxy-server=http://${proxy}`,
            // Chromium never proxies loopback unless told to.
            '--proxy-bypass-list=<-loopback>',
          ],
        })
      : await puppeteer.launch({
          browser: 'firefox',
          executablePath: executable,
          headless: true,
          acceptInsecureCerts: true,
          extraPrefsFirefox: {
            'network.proxy.type': 1,
            'network.proxy.http': '127.0.0.1',
            'network.proxy.http_port': proxyPort,
            'network.proxy.ssl': '127.0.0.1',
            'network.proxy.ssl_port': proxyPort,
            'network.proxy.no_proxies_on': '',
            // Firefox never proxies loopback unless told to.
            'network.proxy.allow_hijacking_localhost': true,
            // Told to, Firefox 140 no longer counts http://localhost as a
            // secure context, which it is to a visitor (no proxy): without
            // this, `crypto.randomUUID` (the consent record's id) is
            // missing there, and recording a choice throws.
            'network.proxy.testing_localhost_is_secure_when_hijacked': true,
          },
        });
  return {
    engine,
    async newPage(viewport) {
      const context = await browser.createBrowserContext();
      const page = await context.newPage();
      await setViewport(page, viewport);
      const errors: string[] = [];
      page.on('pageerror', (error) =>
        errors.push(error instanceof Error ? error.message : String(error)),
      );
      return puppeteerPage(engine, page, errors, () => context.close());
    },
    close: () => browser.close(),
  };
}

/**
 * `page.setViewport`, on a browser without WebDriver BiDi's
 * `emulation.setScreenOrientationOverride` too. Over BiDi, puppeteer sends
 * that command beside `browsingContext.setViewport` and fails when it is
 * unknown, as it is to Firefox ESR 140 (Debian's `firefox-esr` 140.12);
 * puppeteer already lets an unknown `emulation.setTouchOverride` pass.
 * These tests set no orientation and no touch, so the size is all that
 * matters: it is waited for in the page (`innerWidth`, `innerHeight`), and
 * any other failure is thrown.
 *
 * @throws the error of `page.setViewport` unless it is that unknown command
 */
async function setViewport(page: Page, viewport: Viewport): Promise<void> {
  try {
    await page.setViewport(viewport);
  } catch (error) {
    if (
      !(error instanceof ProtocolError) ||
      !/unknown command emulation\.setScreenOrientationOverride/.test(
        error.message,
      )
    ) {
      throw error;
    }
    await page.waitForFunction(
      (width, height) =>
        window.innerWidth === width && window.innerHeight === height,
      {},
      viewport.width,
      viewport.height,
    );
  }
}

function storedCookie(cookie: Cookie): StoredCookie {
  return {
    name: cookie.name,
    value: cookie.value,
    domain: cookie.domain,
    path: cookie.path,
    secure: cookie.secure,
    httpOnly: cookie.httpOnly ?? false,
    sameSite: cookie.sameSite,
    expires: cookie.session || cookie.expires < 0 ? undefined : cookie.expires,
  };
}

async function pressKey(page: Page, key: Key) {
  if (key === 'Shift+Tab') {
    await page.keyboard.down('Shift');
    await page.keyboard.press('Tab');
    await page.keyboard.up('Shift');
    return;
  }
  // Firefox's BiDi keyboard knows the space bar only by its character.
  await page.keyboard.press(key === 'Space' ? ' ' : (key satisfies KeyInput));
}

function puppeteerPage(
  engine: 'chromium' | 'firefox',
  page: Page,
  errors: string[],
  close: () => Promise<void>,
): EnginePage {
  return {
    engine,
    goto: async (url) => {
      await page.goto(url, { waitUntil: 'load' });
    },
    url: async () => page.url(),
    reload: async () => {
      await page.reload({ waitUntil: 'load' });
    },
    // The arguments and result cross to the page as JSON: puppeteer's
    // handle-aware signature does not apply to them.
    evaluate: <T, A extends unknown[]>(
      fn: (...args: A) => T | Promise<T>,
      ...args: A
    ) =>
      page.evaluate(
        fn as unknown as (...values: unknown[]) => T,
        ...args,
      ) as Promise<T>,
    runScript: async (source) => {
      await page.evaluate(source);
    },
    click: (selector) => page.click(selector),
    type: (text) => page.keyboard.type(text),
    press: (key) => pressKey(page, key),
    cookies: async () =>
      (await page.browserContext().cookies())
        .filter((cookie) => cookieMatches(cookie, page.url()))
        .map(storedCookie),
    setCookie: async (name, value) => {
      await page.browserContext().setCookie({
        name,
        value,
        domain: new URL(page.url()).hostname,
        path: '/',
      });
    },
    setViewport: (viewport) => setViewport(page, viewport),
    screenshot: async (path) => {
      await page.screenshot({ path: path as `${string}.png`, fullPage: true });
    },
    uncaughtErrors: () => [...errors],
    close,
  };
}

/** Whether a cookie would be sent to the URL (RFC 6265 §5.4). */
function cookieMatches(cookie: Cookie, url: string): boolean {
  const { hostname } = new URL(url);
  const domain = cookie.domain.replace(/^\./, '');
  const domainMatch = cookie.domain.startsWith('.')
    ? hostname === domain || hostname.endsWith(`.${domain}`)
    : hostname === domain;
  return domainMatch;
}
