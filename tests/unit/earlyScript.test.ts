/**
 * The inline early script (src/earlyScript.ts) in jsdom: it holds a submit
 * of the sign-up form until the app releases it, holds nothing after, and
 * starts the app's script once, after the first paint or the fallback
 * delay.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  APP_START_FALLBACK_MS,
  SIGN_UP_FORM_ID,
  startEarlyScript,
} from '../../src/earlyScript';

function submitEvent(form: HTMLFormElement): Event {
  const event = new Event('submit', { bubbles: true, cancelable: true });
  form.dispatchEvent(event);
  return event;
}

function appScripts(): HTMLScriptElement[] {
  return [...document.head.querySelectorAll<HTMLScriptElement>('script')];
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
    startEarlyScript(window, SIGN_UP_FORM_ID);
    expect(submitEvent(form).defaultPrevented).toBe(true);
    expect(window.vigilHeldSubmit?.release()).toBe(true);
    expect(window.vigilHeldSubmit?.release()).toBe(false);
  });

  it('reports no submit when none was made', () => {
    startEarlyScript(window, SIGN_UP_FORM_ID);
    expect(window.vigilHeldSubmit?.release()).toBe(false);
  });

  it('leaves other forms alone', () => {
    startEarlyScript(window, SIGN_UP_FORM_ID);
    expect(submitEvent(other).defaultPrevented).toBe(false);
    expect(window.vigilHeldSubmit?.release()).toBe(false);
  });

  it('holds nothing once released: the app handles submits', () => {
    startEarlyScript(window, SIGN_UP_FORM_ID);
    window.vigilHeldSubmit?.release();
    expect(submitEvent(form).defaultPrevented).toBe(false);
  });
});

describe("the app's script", () => {
  it('is not started without a URL', () => {
    vi.useFakeTimers();
    startEarlyScript(window, SIGN_UP_FORM_ID);
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
    startEarlyScript(window, SIGN_UP_FORM_ID, '/main.1234abcd.js');
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

  it('starts after the fallback delay when no frame is painted (a hidden tab)', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const frames = vi
      .spyOn(window, 'requestAnimationFrame')
      .mockImplementation(() => 0);
    startEarlyScript(window, SIGN_UP_FORM_ID, '/main.1234abcd.js');
    vi.advanceTimersByTime(APP_START_FALLBACK_MS - 1);
    expect(appScripts()).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(appScripts()).toHaveLength(1);
    frames.mockRestore();
  });
});
