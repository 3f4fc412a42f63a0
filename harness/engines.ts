/**
 * The one place that finds the browser engines the project uses (the
 * browser tests, the screenshots, the atlas and the benchmark), all from
 * Debian's packages (a browser build of its own cannot be downloaded here):
 *
 * | engine   | what is run                                   | variable             | Debian package                  |
 * |----------|-----------------------------------------------|----------------------|---------------------------------|
 * | chromium | `chromium`                                    | `CHROMIUM_PATH`      | `chromium`                      |
 * | firefox  | `firefox-esr`                                 | `FIREFOX_PATH`       | `firefox-esr`                   |
 * | webkit   | `WebKitWebDriver` (it starts WebKitGTK's `MiniBrowser`) under `xvfb-run` | `WEBKIT_DRIVER_PATH` | `webkit2gtk-driver`, `xvfb` |
 *
 * One variable per engine: MiniBrowser is found beside the driver, or
 * beside the WebKitGTK library that the driver package depends on.
 */
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';

export const ENGINES = ['chromium', 'firefox', 'webkit'] as const;
export type Engine = (typeof ENGINES)[number];

/** Where an engine's programs are. */
export interface EnginePaths {
  /** Chromium's or Firefox's binary, or WebKitWebDriver. */
  executable: string;
  /** WebKit only: MiniBrowser, the browser WebKitWebDriver starts. */
  browser?: string;
  /** WebKit only: xvfb-run, the X server MiniBrowser draws into. */
  xvfbRun?: string;
}

/** The Debian packages that provide each engine. */
export const ENGINE_PACKAGES: Record<Engine, string[]> = {
  chromium: ['chromium'],
  firefox: ['firefox-esr'],
  webkit: ['webkit2gtk-driver', 'xvfb'],
};

const ENV_VARIABLE: Record<Engine, string> = {
  chromium: 'CHROMIUM_PATH',
  firefox: 'FIREFOX_PATH',
  webkit: 'WEBKIT_DRIVER_PATH',
};

const CANDIDATES: Record<Engine, string[]> = {
  chromium: ['/usr/bin/chromium', '/usr/bin/chromium-browser'],
  firefox: ['/usr/bin/firefox-esr', '/usr/bin/firefox'],
  webkit: ['/usr/bin/WebKitWebDriver'],
};

const firstExisting = (paths: (string | undefined)[]) =>
  paths.find((path): path is string => !!path && existsSync(path));

/** Beside the driver, else `/usr/lib/<multiarch>/webkit2gtk-4.1/MiniBrowser` (or 4.0's). */
function findMiniBrowser(driver: string): string | undefined {
  const libraries = existsSync('/usr/lib')
    ? readdirSync('/usr/lib').map((dir) => join('/usr/lib', dir))
    : [];
  return firstExisting([
    join(dirname(driver), 'MiniBrowser'),
    ...['/usr/lib', ...libraries].flatMap((dir) => [
      join(dir, 'webkit2gtk-4.1/MiniBrowser'),
      join(dir, 'webkit2gtk-4.0/MiniBrowser'),
    ]),
  ]);
}

/** The message for a missing engine: what to install or to set. */
export function missingEngineMessage(engine: Engine): string {
  return `No ${engine} found. As root run: apt-get update && apt-get install -y ${ENGINE_PACKAGES[engine].join(' ')} (or set ${ENV_VARIABLE[engine]}).`;
}

/**
 * @returns the engine's programs: the path in its variable, else Debian's
 * @throws Error saying which packages to install (or which variable to set)
 *   when a program is missing
 */
export function findEngine(engine: Engine): EnginePaths {
  const executable = firstExisting([
    process.env[ENV_VARIABLE[engine]],
    ...CANDIDATES[engine],
  ]);
  if (!executable) throw new Error(missingEngineMessage(engine));
  if (engine !== 'webkit') return { executable };
  const browser = findMiniBrowser(executable);
  const xvfbRun = firstExisting(['/usr/bin/xvfb-run']);
  if (!browser || !xvfbRun) throw new Error(missingEngineMessage(engine));
  return { executable, browser, xvfbRun };
}

/** The flags this closed network needs, whatever drives Chromium. */
export const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/**
 * Headless system Chromium through playwright-core (no browser download).
 * @param args extra command-line flags, after {@link CHROMIUM_FLAGS}
 * @throws Error from {@link findEngine} when Chromium is missing
 */
export function launchChromium(args: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: findEngine('chromium').executable,
    headless: true,
    args: [...CHROMIUM_FLAGS, ...args],
  });
}
