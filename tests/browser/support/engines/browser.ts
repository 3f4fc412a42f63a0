/**
 * One interface to a page in Chromium, Firefox or WebKit: the operations
 * the shared browser tests need (tests/browser/engines.test.ts), over the
 * driver each engine can be driven with here:
 *
 * - Chromium and Firefox: puppeteer-core (CDP for Chromium, WebDriver BiDi
 *   for Firefox), one adapter for both (./puppeteerEngine.ts);
 * - WebKit: WebdriverIO over classic WebDriver to WebKitGTK's
 *   WebKitWebDriver and MiniBrowser (./webkitEngine.ts).
 *
 * Playwright's own Firefox and WebKit builds cannot be downloaded here, and
 * there is no chromedriver or geckodriver: WebdriverIO for all three is not
 * possible, and puppeteer-core does not drive WebKit. Every engine sends its
 * traffic through the tests' proxy (./network.ts), so no adapter intercepts
 * requests itself.
 */
import type { Engine } from '../../../../harness/engines';

/** A key a visitor presses. */
export type Key =
  'Tab' | 'Shift+Tab' | 'Enter' | 'Space' | 'Escape' | 'Backspace';

/** A cookie as the engine stores it. */
export interface StoredCookie {
  name: string;
  value: string;
  /** `localhost` for a host-only cookie, `.vigil.test` for a domain cookie (as the engine reports it). */
  domain: string;
  path: string;
  secure: boolean;
  httpOnly: boolean;
  /** `Strict`, `Lax`, `None`, or undefined when the engine does not say. */
  sameSite: string | undefined;
  /** Seconds since the epoch; undefined for a session cookie. */
  expires: number | undefined;
}

export interface Viewport {
  /** CSS pixels. */
  width: number;
  height: number;
}

export interface EnginePage {
  engine: Engine;
  /** Navigates and waits for the load event. */
  goto: (url: string) => Promise<void>;
  url: () => Promise<string>;
  /**
   * Reloads the page as the browser's reload button does (puppeteer's
   * reload, WebDriver's Refresh) and waits for the load event.
   */
  reload: () => Promise<void>;
  /**
   * Runs a self-contained function in the page (it is serialised: no
   * closures) and returns its JSON-serialisable result.
   */
  evaluate: <T, A extends unknown[]>(
    fn: (...args: A) => T | Promise<T>,
    ...args: A
  ) => Promise<T>;
  /** Runs a classic script's source in the page (e.g. axe-core's). */
  runScript: (source: string) => Promise<void>;
  /** Clicks the element's centre, as a pointer would. */
  click: (selector: string) => Promise<void>;
  /** Types text with the keyboard into the focused element. */
  type: (text: string) => Promise<void>;
  press: (key: Key) => Promise<void>;
  /** The cookies the engine stores for the page's URL. */
  cookies: () => Promise<StoredCookie[]>;
  /** Stores a cookie for the page's current origin, as an earlier visit would have. */
  setCookie: (name: string, value: string) => Promise<void>;
  /** The viewport's size in CSS pixels. */
  setViewport: (viewport: Viewport) => Promise<void>;
  /** Saves a PNG: the whole page (puppeteer), or the viewport (classic WebDriver has no more). */
  screenshot: (path: string) => Promise<void>;
  /**
   * Exceptions the page did not catch, where the driver reports them
   * (puppeteer); classic WebDriver has no such event: undefined.
   */
  uncaughtErrors: (() => string[]) | undefined;
  close: () => Promise<void>;
}

export interface EngineBrowser {
  engine: Engine;
  /** A page with no cookies and no sessionStorage from earlier pages. */
  newPage: (viewport: Viewport) => Promise<EnginePage>;
  close: () => Promise<void>;
}
