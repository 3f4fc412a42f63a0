/**
 * WebKit through WebdriverIO over classic WebDriver: WebKitGTK's
 * WebKitWebDriver starts MiniBrowser, WebKitGTK's small browser. What WebKit
 * needed here that the other engines did not:
 *
 * - An X display: MiniBrowser's `--headless` does not work with WebKitGTK
 *   2.50, so the driver runs under `xvfb-run`.
 * - The proxy as MiniBrowser's own `--proxy` option, not the WebDriver
 *   `proxy` capability: WebKitWebDriver turns the capability's `sslProxy`
 *   into an HTTPS proxy (TLS to the proxy itself), which the proxy cannot
 *   serve with a certificate MiniBrowser accepts. `--proxy` sends every
 *   scheme through the plain HTTP proxy with CONNECT, as Chromium and
 *   Firefox do.
 * - A 320 px viewport: MiniBrowser's toolbar keeps its window at least 447 px
 *   wide. A GTK stylesheet (in the driver's own `XDG_CONFIG_HOME`) shrinks
 *   MiniBrowser's GTK widgets, toolbar included; web content is drawn by
 *   WebKit, not GTK, and is not touched.
 * - Keys pressed one at a time: WebdriverIO's `keys()` presses every key of
 *   a text down before releasing any, and WebKit drops a repeated key
 *   (`3000` arrives as `30`).
 * - One session for all pages: starting a MiniBrowser per test is slow and
 *   now and then never answers. Closing a page deletes the cookies of the
 *   host it is on (classic WebDriver deletes those of the current
 *   document), clears that origin's sessionStorage and localStorage, and
 *   leaves it blank.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Key as WdioKey, remote } from 'webdriverio';
import type { EngineBrowser, EnginePage, Key, StoredCookie } from './browser';
import { findEngine } from '../../../../harness/engines';

type WebKitSession = WebdriverIO.Browser;

const KEYS: Record<Key, string[]> = {
  Tab: [WdioKey.Tab],
  'Shift+Tab': [WdioKey.Shift, WdioKey.Tab],
  Enter: [WdioKey.Enter],
  Space: [WdioKey.Space],
  Escape: [WdioKey.Escape],
  Backspace: [WdioKey.Backspace],
};

/** Shrinks MiniBrowser's GTK widgets (toolbar, buttons, entry). */
const GTK_STYLESHEET = `* { min-width: 0; min-height: 0; padding: 0; margin: 0; border-width: 0; font-size: 1px; }
image { -gtk-icon-transform: scale(0.1); }
`;

function gtkConfigHome(): string {
  const home = mkdtempSync(join(tmpdir(), 'vigil-webkit-'));
  mkdirSync(join(home, 'gtk-3.0'));
  writeFileSync(join(home, 'gtk-3.0', 'gtk.css'), GTK_STYLESHEET);
  return home;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address
          ? resolve(address.port)
          : reject(new Error('no free port')),
      );
    });
  });
}

/** Waits until the driver answers `GET /status`. */
async function driverReady(port: number, driver: ChildProcess) {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (driver.exitCode !== null) {
      throw new Error(`WebKitWebDriver exited with ${driver.exitCode}`);
    }
    try {
      const response = await fetch(`http://127.0.0.1:${port}/status`);
      if (response.ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('WebKitWebDriver did not start within 20 s');
}

/** Presses and releases each key in turn, modifiers held around the last. */
function pressInTurn(session: WebKitSession, keys: string[]) {
  const modifiers = keys.slice(0, -1);
  const action = session.action('key');
  for (const modifier of modifiers) action.down(modifier);
  const last = keys.at(-1);
  if (last !== undefined) action.down(last).up(last);
  for (const modifier of modifiers.reverse()) action.up(modifier);
  return action.perform();
}

/** @param proxyPort the tests' proxy on 127.0.0.1 (./network.ts) */
export async function launchWebKitEngine(
  proxyPort: number,
): Promise<EngineBrowser> {
  const { executable, browser, xvfbRun } = findEngine('webkit');
  if (!browser || !xvfbRun) {
    throw new Error('WebKit needs MiniBrowser and xvfb-run');
  }
  const port = await freePort();
  const configHome = gtkConfigHome();
  // Its own process group, so that closing ends Xvfb and the driver too.
  const driver = spawn(
    xvfbRun,
    ['-a', '-s', '-screen 0 1920x1080x24', executable, `--port=${port}`],
    {
      detached: true,
      stdio: 'ignore',
      env: { ...process.env, XDG_CONFIG_HOME: configHome },
    },
  );
  const stop = () => {
    if (driver.pid && driver.exitCode === null) {
      process.kill(-driver.pid, 'SIGTERM');
    }
    rmSync(configHome, { recursive: true, force: true });
  };
  try {
    await driverReady(port, driver);
    const capabilities: WebdriverIO.Capabilities & {
      'webkitgtk:browserOptions': { binary: string; args: string[] };
    } = {
      browserName: 'MiniBrowser',
      // The proxy's certificates come from its throwaway CA.
      acceptInsecureCerts: true,
      'wdio:enforceWebDriverClassic': true,
      'webkitgtk:browserOptions': {
        binary: browser,
        args: ['--automation', `--proxy=http://127.0.0.1:${proxyPort}`],
      },
    };
    const session = await remote({
      hostname: '127.0.0.1',
      port,
      logLevel: 'error',
      capabilities,
    });
    return {
      engine: 'webkit',
      async newPage(viewport) {
        const page = webkitPage(session);
        await page.setViewport(viewport);
        return page;
      },
      close: async () => {
        try {
          await session.deleteSession();
        } finally {
          stop();
        }
      },
    };
  } catch (error) {
    stop();
    throw error;
  }
}

function webkitPage(session: WebKitSession): EnginePage {
  return {
    engine: 'webkit',
    goto: async (url) => {
      await session.url(url);
    },
    url: () => session.getUrl(),
    reload: async () => {
      await session.refresh();
    },
    // The arguments and result cross to the page as JSON: WebdriverIO's
    // element-aware signature does not apply to them.
    evaluate: <T, A extends unknown[]>(
      fn: (...args: A) => T | Promise<T>,
      ...args: A
    ) =>
      session.execute(
        fn as unknown as (...values: unknown[]) => T,
        ...args,
      ) as Promise<T>,
    runScript: async (source) => {
      await session.execute(`${source}\n;return true;`);
    },
    click: async (selector) => {
      await session.$(selector).click();
    },
    type: async (text) => {
      const action = session.action('key');
      for (const character of text) action.down(character).up(character);
      await action.perform();
    },
    press: (key) => pressInTurn(session, KEYS[key]),
    cookies: async () =>
      (await session.getCookies()).map((cookie): StoredCookie => ({
        name: cookie.name,
        value: cookie.value,
        domain: cookie.domain ?? '',
        path: cookie.path ?? '/',
        secure: cookie.secure ?? false,
        httpOnly: cookie.httpOnly ?? false,
        sameSite: cookie.sameSite,
        expires: cookie.expiry,
      })),
    setCookie: (name, value) => session.setCookies({ name, value, path: '/' }),
    setViewport: async ({ width, height }) => {
      // The window includes MiniBrowser's toolbar: size it, then correct
      // it by what the viewport lacks, from the window's size as it really
      // is (the first resize may not have taken effect yet, or may have
      // been clamped), until the viewport is the one asked for.
      await session.setWindowSize(width, height);
      for (let attempt = 0; attempt < 3; attempt += 1) {
        const [innerWidth = width, innerHeight = height] =
          await session.execute(() => [window.innerWidth, window.innerHeight]);
        if (innerWidth === width && innerHeight === height) return;
        const outer = await session.getWindowSize();
        await session.setWindowSize(
          Math.max(1, outer.width + width - innerWidth),
          Math.max(1, outer.height + height - innerHeight),
        );
      }
    },
    screenshot: async (path) => {
      await session.saveScreenshot(path);
    },
    uncaughtErrors: undefined,
    close: async () => {
      // Every "page" is the same WebDriver window: leave it as a new
      // browser would be, without the cookies, the tab's sessionStorage
      // (the sign-up draft, ADR-0055) and the localStorage (consent records
      // kept until the service took them, ADR-0068) of this page's origin. A
      // record kept by one test was sent again on the next test's load.
      await session.execute(() => {
        try {
          window.sessionStorage.clear();
          window.localStorage.clear();
        } catch {
          // about:blank, or storage disabled: nothing to clear.
        }
      });
      await session.deleteCookies();
      await session.url('about:blank');
    },
  };
}
