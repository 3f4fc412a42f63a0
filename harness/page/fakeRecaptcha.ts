/**
 * A local fake of Google's reCAPTCHA v2 script, for the browser tests only:
 * Google's servers cannot be reached here, and a real captcha cannot be
 * solved by a test. It implements the part of `window.grecaptcha` that
 * react-google-recaptcha calls (render, reset, getResponse, execute) and
 * renders a checkbox "I'm not a robot" that yields a fresh token.
 * `window.__fakeCaptcha` lets a test count resets and expire a token.
 */
import type { Page } from 'playwright-core';

export const RECAPTCHA_SCRIPT_PATTERN =
  /^https:\/\/(www\.google\.com|www\.recaptcha\.net|recaptcha\.net)\/recaptcha\//;

/** The fake script; it calls `window[onload]` asynchronously, as Google's does. */
export function fakeRecaptchaScript(onload: string): string {
  return `(() => {
  const widgets = [];
  let issued = 0;
  const state = { resets: 0, renders: 0, tokens: [] };
  window.__fakeCaptcha = {
    state,
    // The newest widget by default: a page (or a test file) may render more.
    expire(id = widgets.length - 1) {
      const widget = widgets[id];
      widget.box.checked = false;
      widget.token = '';
      const expired = widget.params['expired-callback'];
      if (expired) expired();
    },
  };
  window.grecaptcha = {
    render(container, params) {
      const id = widgets.length;
      const label = document.createElement('label');
      // Google's sizes: 304 × 78, or 164 × 144 when compact.
      const size = params.size === 'compact' ? 'width:164px;height:144px;flex-direction:column;justify-content:center' : 'width:304px;height:78px';
      label.setAttribute('style', 'display:flex;align-items:center;gap:12px;box-sizing:border-box;' + size + ';padding:0 12px;border:1px solid #d3d3d3;border-radius:3px;background:#f9f9f9;font:14px Roboto,Arial,sans-serif;color:#000;cursor:pointer');
      const box = document.createElement('input');
      box.type = 'checkbox';
      box.setAttribute('data-testid', 'fake-captcha');
      box.setAttribute('style', 'width:28px;height:28px;margin:0');
      label.append(box, "I'm not a robot");
      const widget = { box, params, token: '' };
      box.addEventListener('change', () => {
        if (!box.checked) return;
        issued += 1;
        widget.token = 'fake-captcha-token-' + issued;
        state.tokens.push(widget.token);
        params.callback(widget.token);
      });
      container.appendChild(label);
      widgets.push(widget);
      state.renders += 1;
      return id;
    },
    reset(id = 0) {
      const widget = widgets[id];
      if (!widget) return;
      widget.box.checked = false;
      widget.token = '';
      state.resets += 1;
    },
    getResponse(id = 0) {
      return widgets[id] ? widgets[id].token : '';
    },
    execute() {},
    ready(callback) { callback(); },
  };
  setTimeout(() => { window[${JSON.stringify(onload)}](); }, 0);
})();`;
}

/** Routes Google's reCAPTCHA script (and nothing else) to the fake. */
export async function useFakeRecaptcha(page: Page): Promise<void> {
  await page.route(RECAPTCHA_SCRIPT_PATTERN, (route) => {
    const onload =
      new URL(route.request().url()).searchParams.get('onload') ??
      'onloadcallback';
    return route.fulfill({
      status: 200,
      contentType: 'text/javascript',
      body: fakeRecaptchaScript(onload),
    });
  });
}
