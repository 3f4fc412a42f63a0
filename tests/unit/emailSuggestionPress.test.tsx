// @vitest-environment jsdom
/**
 * The e-mail suggestion held while a pointer press is under way
 * (src/signUp/views/afterPress.ts, ADR-0054: advice, never in the way of a
 * sign-up). The field's blur checks the address; when a press caused the blur,
 * the suggestion must appear only after that press's `click`, whose target the
 * release fixed, so that the control pressed is still under the pointer.
 * The events are dispatched in the order the UI Events and Pointer Events
 * specifications give for a mouse, a touch, a drag and a window left
 * mid-press; the clock is faked. The three engines are
 * tests/browser/formHelp.test.ts's.
 */
import { act, renderHook } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { useAfterPress } from '../../src/signUp/views/afterPress';

/** Where the visitor presses, and what happens, in order. */
function setUp() {
  const button = document.createElement('button');
  document.body.append(button);
  const log: string[] = [];
  button.addEventListener('click', () => log.push('click'));
  const { result, unmount } = renderHook(() => useAfterPress());
  /** The field's blur: the suggestion's check, through the hook. */
  const blur = () => result.current(() => log.push('check'));
  /** Dispatches events at the button, a blur where `blur` stands. */
  const dispatch = (...types: string[]) => {
    for (const type of types) {
      if (type === 'blur') blur();
      else if (type === 'window blur') window.dispatchEvent(new Event('blur'));
      else button.dispatchEvent(new Event(type, { bubbles: true }));
    }
  };
  return { log, dispatch, unmount };
}

describe('useAfterPress: the e-mail suggestion and a press (ADR-0054)', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
    document.body.replaceChildren();
  });

  it('a blur from the keyboard (Tab) checks at once', () => {
    const { log, dispatch } = setUp();
    dispatch('keydown', 'blur');
    expect(log).toEqual(['check']);
  });

  it.each([
    [
      'a mouse',
      ['pointerdown', 'mousedown', 'blur', 'pointerup', 'mouseup', 'click'],
    ],
    [
      // The compatibility mouse events follow the touch's end; their
      // mousedown moves focus.
      'a touch',
      [
        'pointerdown',
        'touchstart',
        'pointerup',
        'touchend',
        'mousedown',
        'blur',
        'mouseup',
        'click',
      ],
    ],
  ])('a blur from %s’s press checks after its click', (_pointer, sequence) => {
    const { log, dispatch } = setUp();
    dispatch(...sequence);
    expect(log).toEqual(['click']);
    act(() => {
      vi.runAllTimers();
    });
    expect(log).toEqual(['click', 'check']);
  });

  it.each([
    ['a drag’s end', 'dragend'],
    ['a cancelled pointer', 'pointercancel'],
    ['the window losing focus', 'window blur'],
  ])('a press that ends in %s checks then, with no click', (_end, ending) => {
    const { log, dispatch } = setUp();
    dispatch('pointerdown', 'mousedown', 'blur');
    act(() => {
      vi.runAllTimers();
    });
    expect(log).toEqual([]);
    dispatch(ending);
    act(() => {
      vi.runAllTimers();
    });
    expect(log).toEqual(['check']);
  });

  it('a press that ended leaves the next blur from the keyboard at once', () => {
    const { log, dispatch } = setUp();
    dispatch('pointerdown', 'mousedown', 'pointerup', 'mouseup', 'click');
    dispatch('blur');
    expect(log).toEqual(['click', 'check']);
  });

  it('a form gone before the press ends checks nothing', () => {
    const { log, dispatch, unmount } = setUp();
    dispatch('mousedown', 'blur', 'mouseup');
    unmount();
    act(() => {
      vi.runAllTimers();
    });
    expect(log).toEqual([]);
  });
});
