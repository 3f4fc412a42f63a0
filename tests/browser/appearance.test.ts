/**
 * The page in every setting a visitor may have (issue 22; ADR-0051 to ADR-0053;
 * docs/accessibility.md), in Chromium with Playwright's
 * media emulation (`emulateMedia`: `forcedColors`, `colorScheme`,
 * `reducedMotion`):
 *
 * - forced colours (Windows high contrast): every button, input, checkbox
 *   and the consent dialog has a boundary in system colours, read from the
 *   computed style; focus stays visible; errors are told apart by more
 *   than colour;
 * - the dark scheme: `color-scheme` declared, a dark page with the same
 *   layout, dark from the first paint (the prerendered page before any
 *   script), the account page at `/` too; axe-core's check of every state
 *   of both machines in the dark scheme is tests/browser/darkAudit.test.ts's
 *   (in `npm run test:engines`, ADR-0086);
 * - reduced motion: nothing transitions;
 * - reflow at 400 % zoom (a 1280 × 1024 window is 320 × 256 CSS px; WCAG
 *   1.4.10) and with WCAG 1.4.12's text spacing: no sideways scrolling,
 *   nothing sticking out or cut off.
 */
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import {
  DESKTOP,
  openSignUpPage,
  type OpenOptions,
} from '../../harness/page/signUpPage';
import { axeViolationsIn } from './support/axe';
import { useChromiumAndServer } from './support/browserSuite';

const suite = useChromiumAndServer();

/** 400 % zoom of a 1280 × 1024 window, in CSS px (WCAG 1.4.10's 320 px). */
const ZOOM_400 = { width: 320, height: 256 };

/** The views the issue names: the form, an error state, the consent dialog. */
const VIEWS = {
  form: { query: '' },
  errors: { query: '' },
  consent: { query: '?utm_source=google' },
} as const;
type View = keyof typeof VIEWS;

/** Opens the page and brings it to the view (errors: an empty submit). */
async function openView(view: View, options: Omit<OpenOptions, 'query'> = {}) {
  const opened = await openSignUpPage(suite.browser, suite.server.origin, {
    ...options,
    query: VIEWS[view].query,
  });
  const { page } = opened;
  if (view === 'errors') {
    await page.locator('#signup-form button[type="submit"]').click();
    await page.locator('#error-summary').waitFor();
  }
  if (view === 'consent') await page.getByTestId('consent-modal').waitFor();
  return opened;
}

async function inView<T>(
  view: View,
  body: (page: Page) => Promise<T>,
  options: Omit<OpenOptions, 'query'> = {},
): Promise<T> {
  const { context, page } = await openView(view, options);
  try {
    return await body(page);
  } finally {
    await context.close();
  }
}

/** `rgb(…)`/`rgba(…)` as computed styles give them; alpha 1 when absent. */
function parseColour(text: string): [number, number, number, number] {
  const match = /rgba?\(([^)]+)\)/.exec(text);
  if (!match?.[1]) throw new Error(`not an rgb() colour: ${text}`);
  const [r = 0, g = 0, b = 0, a = 1] = match[1]
    .split(/[\s,/]+/)
    .filter(Boolean)
    .map(Number);
  return [r, g, b, a];
}

/** WCAG 2.2's relative luminance of an opaque colour. */
function luminance(text: string): number {
  const [r, g, b] = parseColour(text)
    .slice(0, 3)
    .map((v) => {
      const c = v / 255;
      return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
  return 0.2126 * (r ?? 0) + 0.7152 * (g ?? 0) + 0.0722 * (b ?? 0);
}

/** WCAG 2.2's contrast ratio of two opaque colours. */
function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return ((hi ?? 0) + 0.05) / ((lo ?? 0) + 0.05);
}

interface Edge {
  width: number;
  style: string;
  colour: string;
}

/** What the computed style draws around one element. */
interface Boundary {
  name: string;
  borders: Edge[];
  outline: Edge;
}

/**
 * The borders and outline of every element matching `selector`, from the
 * computed style, with the page's canvas colour (the body's background).
 */
function boundaries(selector: string) {
  const edge = (width: string, style: string, colour: string) => ({
    width: parseFloat(width),
    style,
    colour,
  });
  const elements = [...document.querySelectorAll<HTMLElement>(selector)];
  return {
    canvas: getComputedStyle(document.body).backgroundColor,
    elements: elements.map((element) => {
      const s = getComputedStyle(element);
      return {
        name:
          element.getAttribute('data-testid') ||
          element.id ||
          element.textContent?.trim() ||
          element.tagName,
        borders: (['Top', 'Right', 'Bottom', 'Left'] as const).map((side) =>
          edge(
            s.getPropertyValue(`border-${side.toLowerCase()}-width`),
            s.getPropertyValue(`border-${side.toLowerCase()}-style`),
            s.getPropertyValue(`border-${side.toLowerCase()}-color`),
          ),
        ),
        outline: edge(s.outlineWidth, s.outlineStyle, s.outlineColor),
      };
    }),
  };
}

/** An edge that shows: at least 1 px, drawn, 3:1 against the canvas. */
function shows(edge: Edge, canvas: string): boolean {
  return (
    edge.width >= 1 &&
    edge.style !== 'none' &&
    edge.style !== 'hidden' &&
    parseColour(edge.colour)[3] > 0 &&
    contrast(edge.colour, canvas) >= 3
  );
}

/** Whole border on four sides, or an outline: the element's boundary. */
function hasBoundary(element: Boundary, canvas: string): boolean {
  return (
    element.borders.every((edge) => shows(edge, canvas)) ||
    shows(element.outline, canvas)
  );
}

/**
 * Our controls: every input and button but Google's widget (the local
 * fake stands in for it) and the buttons styled as links (links carry no
 * box, in forced colours as elsewhere: they are LinkText).
 */
const CONTROLS = [
  '#signup-form input:not([data-testid="fake-captcha"])',
  'button:not(.link-button):not(.consent__close):not(.email-suggestion__apply)',
  '[role="dialog"]',
].join(', ');

describe('forced colours (forced-colors: active)', () => {
  it.each(Object.keys(VIEWS) as View[])(
    '%s: every button, input, checkbox and the dialog has a boundary in system colours',
    async (view) => {
      await inView(view, async (page) => {
        await page.emulateMedia({ forcedColors: 'active' });
        const { canvas, elements } = await page.evaluate(boundaries, CONTROLS);
        // Forced colours paint the canvas in a system colour.
        expect(canvas).toBe('rgb(255, 255, 255)');
        const expected = view === 'consent' ? 3 : 6;
        expect(elements.length).toBeGreaterThanOrEqual(expected);
        const without = elements
          .filter((element) => !hasBoundary(element, canvas))
          .map((element) => element.name);
        expect(without).toEqual([]);
        if (view === 'consent') {
          expect(elements.map((e) => e.name)).toEqual(
            expect.arrayContaining([
              'consent-modal',
              'consent-accept',
              'consent-reject',
            ]),
          );
        }
      });
    },
  );

  it('focus stays visible: a ring of at least 2 px, 3:1 against the canvas, on every control Tab reaches', async () => {
    const rings = await inView('errors', async (page) => {
      await page.emulateMedia({ forcedColors: 'active' });
      const seen: { name: string; canvas: string; ring: Edge }[] = [];
      // The summary's five links, three inputs, two boxes, the captcha, the
      // submit button.
      for (let step = 0; step < 12; step += 1) {
        await page.keyboard.press('Tab');
        const focused = await page.evaluate(() => {
          const element = document.activeElement;
          if (!element || element.closest('[data-testid="fake-captcha"]')) {
            return undefined;
          }
          const s = getComputedStyle(element);
          return {
            name: element.id || element.textContent?.trim() || element.tagName,
            canvas: getComputedStyle(document.body).backgroundColor,
            ring: {
              width: parseFloat(s.outlineWidth),
              style: s.outlineStyle,
              colour: s.outlineColor,
            },
          };
        });
        if (focused) seen.push(focused);
      }
      return seen;
    });
    expect(rings.map((r) => r.name)).toEqual(
      expect.arrayContaining(['name', 'email', 'url', 'newsletter', 'tos']),
    );
    expect(rings.length).toBeGreaterThanOrEqual(10);
    for (const { name, canvas, ring } of rings) {
      expect(ring.width, name).toBeGreaterThanOrEqual(2);
      expect(shows(ring, canvas), name).toBe(true);
    }
  });

  it('focus stays visible in the consent dialog', async () => {
    await inView('consent', async (page) => {
      await page.emulateMedia({ forcedColors: 'active' });
      for (const id of ['consent-accept', 'consent-reject']) {
        await page.keyboard.press('Tab');
        const ring = await page.evaluate(() => {
          const s = getComputedStyle(document.activeElement ?? document.body);
          return {
            id: document.activeElement?.getAttribute('data-testid'),
            canvas: getComputedStyle(document.body).backgroundColor,
            edge: {
              width: parseFloat(s.outlineWidth),
              style: s.outlineStyle,
              colour: s.outlineColor,
            },
          };
        });
        expect(ring.id).toBe(id);
        expect(ring.edge.width).toBeGreaterThanOrEqual(2);
        expect(shows(ring.edge, ring.canvas), id).toBe(true);
      }
    });
  });

  it('errors are told apart by more than colour: a bar beside each field in error, bold messages, a framed summary', async () => {
    await inView('errors', async (page) => {
      await page.emulateMedia({ forcedColors: 'active' });
      const seen = await page.evaluate(() => {
        const canvas = getComputedStyle(document.body).backgroundColor;
        const bar = (element: Element) => {
          const s = getComputedStyle(element);
          return {
            width: parseFloat(s.borderLeftWidth),
            style: s.borderLeftStyle,
            colour: s.borderLeftColor,
          };
        };
        return {
          canvas,
          fields: [...document.querySelectorAll('.field')].map((field) => ({
            invalid: field.querySelector('[aria-invalid="true"]') !== null,
            bar: bar(field),
            weight: Number(
              getComputedStyle(field.querySelector('.field__error') ?? field)
                .fontWeight,
            ),
          })),
          summary: bar(document.querySelector('#error-summary') as Element),
        };
      });
      const invalid = seen.fields.filter((f) => f.invalid);
      // Name, e-mail, URL, terms (the captcha's error is in its own box).
      expect(invalid).toHaveLength(4);
      for (const field of invalid) {
        expect(field.bar.width).toBeGreaterThanOrEqual(4);
        expect(shows(field.bar, seen.canvas)).toBe(true);
        expect(field.weight).toBeGreaterThanOrEqual(600);
      }
      // The valid newsletter box has no bar: the bar alone tells them apart.
      for (const field of seen.fields.filter((f) => !f.invalid)) {
        expect(shows(field.bar, seen.canvas)).toBe(false);
      }
      expect(seen.summary.width).toBeGreaterThanOrEqual(4);
      expect(shows(seen.summary, seen.canvas)).toBe(true);
    });
  });
});

/** Every box of the page: tag, class and rectangle, in document order. */
function layout() {
  return [...document.querySelectorAll<HTMLElement>('body *')].map((e) => {
    const r = e.getBoundingClientRect();
    return `${e.tagName}.${e.className}: ${r.x},${r.y} ${r.width}×${r.height}`;
  });
}

describe('the dark scheme (prefers-color-scheme: dark)', () => {
  it('declares color-scheme, so controls and scrollbars follow', async () => {
    await inView('form', async (page) => {
      await expect(
        page.locator('meta[name="color-scheme"]').getAttribute('content'),
      ).resolves.toBe('light dark');
      const scheme = await page.evaluate(
        () => getComputedStyle(document.documentElement).colorScheme,
      );
      expect(scheme).toBe('light dark');
    });
  });

  it.each(Object.keys(VIEWS) as View[])(
    '%s: a dark page, light text, the same layout as the light one',
    async (view) => {
      await inView(view, async (page) => {
        const look = () =>
          page.evaluate(() => ({
            canvas: getComputedStyle(document.body).backgroundColor,
            ink: getComputedStyle(document.body).color,
            card: getComputedStyle(document.querySelector('.card') as Element)
              .backgroundColor,
          }));
        await page.emulateMedia({ colorScheme: 'light' });
        const light = {
          look: await look(),
          boxes: await page.evaluate(layout),
        };
        await page.emulateMedia({ colorScheme: 'dark' });
        const dark = { look: await look(), boxes: await page.evaluate(layout) };
        expect(luminance(light.look.canvas)).toBeGreaterThan(0.8);
        expect(luminance(dark.look.canvas)).toBeLessThan(0.02);
        expect(luminance(dark.look.card)).toBeLessThan(0.02);
        expect(contrast(dark.look.ink, dark.look.canvas)).toBeGreaterThan(12);
        expect(dark.boxes).toEqual(light.boxes);
      });
    },
  );

  it('paints dark from the first frame: the prerendered page, before any script, carries both schemes inline', async () => {
    const context = await suite.browser.newContext({
      colorScheme: 'dark',
      viewport: DESKTOP,
    });
    try {
      const page = await context.newPage();
      // The page as first drawn: its script never arrives.
      await page.route(
        (url) => url.pathname.endsWith('.js'),
        (route) => route.fulfill({ contentType: 'text/javascript', body: '' }),
      );
      const response = await page.goto(`${suite.server.origin}/signup`);
      const html = (await response?.text()) ?? '';
      const head = html.slice(0, html.indexOf('</head>'));
      // Declared before the stylesheet, which holds both schemes.
      const meta = head.search(
        /<meta name="?color-scheme"? content="light dark"/,
      );
      expect(meta).toBeGreaterThan(-1);
      expect(meta).toBeLessThan(head.indexOf('<style>'));
      const style = head.slice(head.indexOf('<style>'));
      expect(style).toMatch(/@media \(prefers-color-scheme: ?dark\)/);
      expect(head).not.toMatch(/<link[^>]+stylesheet/);
      const first = await page.evaluate(() => ({
        canvas: getComputedStyle(document.body).backgroundColor,
        form: document.querySelector('#signup-form') !== null,
      }));
      expect(first.form).toBe(true);
      expect(luminance(first.canvas)).toBeLessThan(0.02);
    } finally {
      await context.close();
    }
  });

  it('the account page at / is dark too, with AA contrast; in forced colours its card and links keep their boundaries', async () => {
    const context = await suite.browser.newContext({ colorScheme: 'dark' });
    try {
      const page = await context.newPage();
      await page.goto(`${suite.server.origin}/`);
      await page.getByTestId('signed-out').waitFor();
      const canvas = await page.evaluate(
        () => getComputedStyle(document.body).backgroundColor,
      );
      expect(luminance(canvas)).toBeLessThan(0.02);
      await expect(axeViolationsIn(page)).resolves.toEqual([]);
      await page.emulateMedia({ colorScheme: 'light' });
      await expect(axeViolationsIn(page)).resolves.toEqual([]);
      await page.emulateMedia({ forcedColors: 'active' });
      const card = await page.evaluate(boundaries, '.card');
      expect(card.elements).toHaveLength(1);
      expect(
        card.elements.every((element) => hasBoundary(element, card.canvas)),
      ).toBe(true);
    } finally {
      await context.close();
    }
  });
});

describe('reduced motion (prefers-reduced-motion: reduce)', () => {
  /** Elements with a transition or an animation longer than 0 s. */
  function moving() {
    const long = (value: string) =>
      value.split(',').some((part) => parseFloat(part) > 0);
    return [...document.querySelectorAll<HTMLElement>('body *')]
      .filter((element) => {
        const s = getComputedStyle(element);
        return (
          long(s.transitionDuration) ||
          (s.animationName !== 'none' && long(s.animationDuration))
        );
      })
      .map((element) => `${element.tagName}.${element.className}`);
  }

  it('nothing transitions or animates; without the setting, the buttons and inputs do', async () => {
    await inView('consent', async (page) => {
      await page.emulateMedia({ reducedMotion: 'no-preference' });
      await expect(page.evaluate(moving)).resolves.not.toEqual([]);
      await page.emulateMedia({ reducedMotion: 'reduce' });
      await expect(page.evaluate(moving)).resolves.toEqual([]);
    });
  });
});

/**
 * WCAG 1.4.12's text spacing (W3C's understanding document and its test
 * bookmarklet): line height 1.5, paragraph spacing 2 em, letter spacing
 * 0.12 em, word spacing 0.16 em. Adopted as a constructed stylesheet: the
 * page's Content-Security-Policy allows no inline style.
 */
async function spaceText(page: Page) {
  await page.evaluate(() => {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(`
      * { line-height: 1.5 !important; letter-spacing: 0.12em !important;
          word-spacing: 0.16em !important; }
      p { margin-bottom: 2em !important; }`);
    document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
  });
  // It applies: 0.12 em of a 16 px body is 1.92 px.
  await expect(
    page.evaluate(() => getComputedStyle(document.body).letterSpacing),
  ).resolves.toBe('1.92px');
}

/**
 * Whether the page scrolls sideways, and every visible element whose
 * content is wider than its box (cut off, or sticking out), or taller than
 * its box while the box does not scroll (cut off, or overlapping what
 * follows). Visually hidden text is clipped on purpose.
 */
function reflowFaults() {
  const width = document.documentElement.clientWidth;
  const faults: string[] = [];
  for (const element of document.querySelectorAll<HTMLElement>('body *')) {
    if (element.closest('.visually-hidden')) continue;
    const s = getComputedStyle(element);
    const box = element.getBoundingClientRect();
    if (box.width === 0 || s.visibility === 'hidden') continue;
    const name = `${element.tagName.toLowerCase()}${element.id ? `#${element.id}` : ''}.${element.className}`;
    if (box.right > width + 0.5 || box.left < -0.5) {
      faults.push(`${name} sticks out`);
    }
    if (element.scrollWidth > element.clientWidth + 1) {
      faults.push(`${name} is wider inside`);
    }
    const scrolls = s.overflowY === 'auto' || s.overflowY === 'scroll';
    if (!scrolls && element.scrollHeight > element.clientHeight + 1) {
      faults.push(`${name} is taller inside`);
    }
  }
  return {
    scrolls: document.documentElement.scrollWidth > width,
    faults,
  };
}

describe('reflow at 400 % zoom (WCAG 1.4.10) and with text spacing (WCAG 1.4.12)', () => {
  const settings = [
    { name: '400 % zoom', viewport: ZOOM_400, spaced: false },
    { name: '400 % zoom and text spacing', viewport: ZOOM_400, spaced: true },
    { name: 'text spacing at 1280 px', viewport: DESKTOP, spaced: true },
  ];
  const cases = settings.flatMap((setting) =>
    (['errors', 'consent'] as const).map((view) => ({ ...setting, view })),
  );

  it.each(cases)(
    '$view, $name: no sideways scrolling, nothing cut off',
    async ({ view, viewport, spaced }) => {
      await inView(
        view,
        async (page) => {
          if (spaced) await spaceText(page);
          await expect(page.evaluate(reflowFaults)).resolves.toEqual({
            scrolls: false,
            faults: [],
          });
        },
        { viewport },
      );
    },
  );
});
