import { describe, expect, it } from 'vitest';
import type { ErrorEvent } from '@sentry/browser';
import {
  keepBreadcrumb,
  redactEvent,
  scrub,
} from '../../src/platform/errorScrubbing';

const ORIGIN = 'https://vigil.example';

describe('scrub', () => {
  it('replaces e-mail addresses and foreign URLs in nested strings', () => {
    expect(
      scrub(
        {
          message: 'failed for ada@example.com at https://shop.example.org/x',
          list: ['www.spam.example', `${ORIGIN}/signup`],
          count: 3,
        },
        ORIGIN,
      ),
    ).toEqual({
      message: 'failed for [email] at [url]',
      list: ['[url]', `${ORIGIN}/signup`],
      count: 3,
    });
  });
});

describe('redactEvent', () => {
  it('drops the user, the request body, headers and query, and scrubs the rest', () => {
    const event = {
      type: undefined,
      message: 'sign-up failed: network',
      user: { email: 'ada@example.com', ip_address: '1.2.3.4' },
      request: {
        url: `${ORIGIN}/signup?name=Ada&email=ada@example.com`,
        data: 'name=Ada&email=ada%40example.com',
        headers: { Cookie: 'VigilLogin=secret' },
        cookies: { VigilLogin: 'secret' },
      },
      extra: { typed: 'Ada Lovelace <ada@example.com> example.com/x' },
    } as ErrorEvent;
    const safe = redactEvent(event, ORIGIN);
    expect(safe).not.toHaveProperty('user');
    expect(safe.request).toEqual({ url: `${ORIGIN}/signup`, headers: {} });
    expect(JSON.stringify(safe)).not.toMatch(/ada@example\.com|secret|name=/);
    expect(safe.message).toBe('sign-up failed: network');
  });
});

describe('keepBreadcrumb', () => {
  it.each([
    ['console', null],
    ['ui.input', null],
    ['fetch', 'fetch'],
    ['navigation', 'navigation'],
  ])('%s → %s', (category, kept) => {
    expect(keepBreadcrumb({ category })?.category ?? null).toBe(kept);
  });
});
