// @vitest-environment jsdom
/**
 * The inline script (src/inputCapture/inputCapture.ts) in jsdom: it holds a submit
 * of the sign-up form until the app releases it, holds nothing after, and
 * starts the app's script once, after the first paint or the fallback
 * delay, with the work that may wait for that paint (the consent defaults)
 * just before it; with a draft key, it saves typing until the app takes
 * over and, after the first paint, fills the prerendered form from the
 * tab's draft (fields the address does not name, and the visitor has not
 * typed into) (issue 22, ADR-0055; issue 38, ADR-0102).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  APP_START_FALLBACK_MS,
  SIGN_UP_FORM_ID,
  startInputCapture,
} from '../../src/inputCapture/inputCapture';

function submitEvent(form: HTMLFormElement): Event {
  const event = new Event('submit', { bubbles: true, cancelable: true });
  form.dispatchEvent(event);
  return event;
}

function appScripts(): HTMLScriptElement[] {
  return [...document.head.querySelectorAll<HTMLScriptElement>('script')];
}

/**
 * Starts the inline script with its first frame held (jsdom has no Paint
 * Timing: the frame fallback applies).
 *
 * @returns a function that paints that frame and runs the task after it
 */
function startHeldFrame(
  ...args: Parameters<typeof startInputCapture>
): () => void {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  const frames: FrameRequestCallback[] = [];
  const requestFrame = vi
    .spyOn(window, 'requestAnimationFrame')
    .mockImplementation((callback) => frames.push(callback));
  startInputCapture(...args);
  requestFrame.mockRestore();
  return () => {
    for (const frame of frames.splice(0)) frame(performance.now());
    vi.advanceTimersByTime(0);
  };
}

let form: HTMLFormElement;
let other: HTMLFormElement;

beforeEach(() => {
  form = document.createElement('form');
  form.id = SIGN_UP_FORM_ID;
  other = document.createElement('form');
  other.id = 'search';
  document.body.append(form, other);
});

afterEach(() => {
  window.vigilHeldSubmit?.release();
  delete window.vigilHeldSubmit;
  document.body.replaceChildren();
  document.head.replaceChildren();
  vi.useRealTimers();
});

describe('the submit hold', () => {
  it('holds a submit of the sign-up form and tells the app once', () => {
    startInputCapture(window, SIGN_UP_FORM_ID);
    expect(submitEvent(form).defaultPrevented).toBe(true);
    expect(window.vigilHeldSubmit?.release()).toBe(true);
    expect(window.vigilHeldSubmit?.release()).toBe(false);
  });

  it('reports no submit when none was made', () => {
    startInputCapture(window, SIGN_UP_FORM_ID);
    expect(window.vigilHeldSubmit?.release()).toBe(false);
  });

  it('leaves other forms alone', () => {
    startInputCapture(window, SIGN_UP_FORM_ID);
    expect(submitEvent(other).defaultPrevented).toBe(false);
    expect(window.vigilHeldSubmit?.release()).toBe(false);
  });

  it('holds nothing once released: the app handles submits', () => {
    startInputCapture(window, SIGN_UP_FORM_ID);
    window.vigilHeldSubmit?.release();
    expect(submitEvent(form).defaultPrevented).toBe(false);
  });
});

describe("the app's script", () => {
  it('is not started without a URL', () => {
    vi.useFakeTimers();
    startInputCapture(window, SIGN_UP_FORM_ID);
    vi.advanceTimersByTime(APP_START_FALLBACK_MS * 2);
    expect(appScripts()).toEqual([]);
  });

  it('starts once, as a module, in a task after the next frame', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    // jsdom has no Paint Timing: the frame fallback applies.
    const frames: FrameRequestCallback[] = [];
    const requestFrame = vi
      .spyOn(window, 'requestAnimationFrame')
      .mockImplementation((callback) => frames.push(callback));
    startInputCapture(window, SIGN_UP_FORM_ID, '/main.1234abcd.js');
    expect(frames).toHaveLength(1);
    frames[0]?.(performance.now());
    expect(appScripts()).toEqual([]);
    vi.advanceTimersByTime(0);
    expect(appScripts()).toHaveLength(1);
    requestFrame.mockRestore();
    const [script] = appScripts();
    expect(script?.type).toBe('module');
    expect(script?.getAttribute('src')).toBe('/main.1234abcd.js');
    vi.advanceTimersByTime(APP_START_FALLBACK_MS * 2);
    expect(appScripts()).toHaveLength(1);
  });

  it('runs the work that waits for the first paint once, just before it', () => {
    const scriptsSeen: number[] = [];
    const paint = startHeldFrame(
      window,
      SIGN_UP_FORM_ID,
      '/main.1234abcd.js',
      undefined,
      () => scriptsSeen.push(appScripts().length),
    );
    expect(scriptsSeen).toEqual([]);
    paint();
    vi.advanceTimersByTime(APP_START_FALLBACK_MS * 2);
    expect(scriptsSeen).toEqual([0]);
    expect(appScripts()).toHaveLength(1);
  });

  it('starts after the fallback delay when no frame is painted (a hidden tab)', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const frames = vi
      .spyOn(window, 'requestAnimationFrame')
      .mockImplementation(() => 0);
    startInputCapture(window, SIGN_UP_FORM_ID, '/main.1234abcd.js');
    vi.advanceTimersByTime(APP_START_FALLBACK_MS - 1);
    expect(appScripts()).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(appScripts()).toHaveLength(1);
    frames.mockRestore();
  });
});

describe('the draft before the app runs (ADR-0055)', () => {
  const KEY = 'Vigil_SIGNUP_DRAFT';
  const stored = {
    name: 'Ada Lovelace',
    email: 'ada@example.com',
    url: 'ada.example',
    newsletter: true,
    tos: true,
  };

  function addInputs() {
    for (const name of ['name', 'email', 'url']) {
      const input = document.createElement('input');
      input.name = name;
      form.append(input);
    }
    for (const name of ['newsletter', 'tos']) {
      const input = document.createElement('input');
      input.type = 'checkbox';
      input.name = name;
      form.append(input);
    }
  }
  const input = (name: string) =>
    form.querySelector<HTMLInputElement>(
      `input[name="${name}"]`,
    ) as HTMLInputElement;
  const draft = () =>
    JSON.parse(window.sessionStorage.getItem(KEY) ?? 'null') as unknown;

  beforeEach(() => {
    addInputs();
  });
  afterEach(() => {
    window.sessionStorage.clear();
    window.history.replaceState(null, '', '/');
  });

  it('fills the form from the draft after the first paint', () => {
    window.sessionStorage.setItem(KEY, JSON.stringify(stored));
    const paint = startHeldFrame(window, SIGN_UP_FORM_ID, undefined, KEY);
    expect(input('name').value).toBe('');
    paint();
    expect(['name', 'email', 'url'].map((name) => input(name).value)).toEqual([
      'Ada Lovelace',
      'ada@example.com',
      'ada.example',
    ]);
    expect(input('newsletter').checked).toBe(true);
    expect(input('tos').checked).toBe(true);
  });

  it('leaves what was typed, and the fields the address names, to them', () => {
    window.sessionStorage.setItem(KEY, JSON.stringify(stored));
    window.history.replaceState(null, '', '/signup?email=grace%40example.com');
    const paint = startHeldFrame(window, SIGN_UP_FORM_ID, undefined, KEY);
    input('name').value = 'Grace';
    paint();
    expect(['name', 'email', 'url'].map((name) => input(name).value)).toEqual([
      'Grace',
      '',
      'ada.example',
    ]);
  });

  it('saves the five values on every edit, until the app takes over', () => {
    startInputCapture(window, SIGN_UP_FORM_ID, undefined, KEY);
    input('email').value = 'ada@example.com';
    input('email').dispatchEvent(new Event('input', { bubbles: true }));
    input('tos').click();
    expect(draft()).toEqual({
      name: '',
      email: 'ada@example.com',
      url: '',
      newsletter: false,
      tos: true,
    });
    window.vigilHeldSubmit?.release();
    input('name').value = 'Ada';
    input('name').dispatchEvent(new Event('input', { bubbles: true }));
    expect(draft()).toMatchObject({ name: '' });
  });

  it('restores nothing once the app has taken over', () => {
    window.sessionStorage.setItem(KEY, JSON.stringify(stored));
    const paint = startHeldFrame(window, SIGN_UP_FORM_ID, undefined, KEY);
    window.vigilHeldSubmit?.release();
    paint();
    expect(input('name').value).toBe('');
  });

  it('saves nothing for an edit outside the sign-up form', () => {
    startInputCapture(window, SIGN_UP_FORM_ID, undefined, KEY);
    const search = document.createElement('input');
    other.append(search);
    search.dispatchEvent(new Event('input', { bubbles: true }));
    expect(window.sessionStorage.getItem(KEY)).toBeNull();
  });

  it('never throws when storage does', () => {
    const getter = vi
      .spyOn(window, 'sessionStorage', 'get')
      .mockImplementation(() => {
        throw new DOMException('denied', 'SecurityError');
      });
    expect(() =>
      startHeldFrame(window, SIGN_UP_FORM_ID, undefined, KEY)(),
    ).not.toThrow();
    expect(() =>
      input('name').dispatchEvent(new Event('input', { bubbles: true })),
    ).not.toThrow();
    expect(input('name').value).toBe('');
    getter.mockRestore();
  });
});
