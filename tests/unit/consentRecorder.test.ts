/**
 * Sending the proof of a consent choice (src/consentRecorder.ts with its
 * sender, src/consentSender.ts; issue 23, D68): with `navigator.sendBeacon`,
 * `fetch` with `keepalive` where there is none or it refuses; a record that
 * could not be sent, or whose sender could not be fetched, is kept and sent
 * on the next load; nothing ever throws at the visitor. The browser's
 * beacon and network are the edge: replaced by fakes here, real in
 * tests/browser/consent.test.ts.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ConsentRecordRequest } from '../../common/consentRecord';
import {
  createConsentRecorder,
  PENDING_RECORDS_MAX,
  type ConsentRecorderOptions,
} from '../../src/consentRecorder';
import * as sender from '../../src/consentSender';

const KEY = 'Vigil_CONSENT_PENDING';

const record = (n = 1): ConsentRecordRequest => ({
  consentId: '0b6c1a5e-3f4d-4c2b-9a8e-1d2c3b4a5f60',
  choice: n % 2 ? 'accepted' : 'rejected',
  revision: n,
  source: 'modal',
  path: '/signup',
});

afterEach(() => {
  localStorage.clear();
});

function recorder(overrides: Partial<ConsentRecorderOptions>) {
  return createConsentRecorder({
    apiOrigin: 'https://api.vigil.example',
    pendingKey: KEY,
    storage: () => localStorage,
    // The sender's chunk, arrived.
    loadSender: async () => sender,
    ...overrides,
  });
}

const pending = () => JSON.parse(localStorage.getItem(KEY) ?? '[]') as unknown;
/** Lets the promise chains of the sends settle. */
const settled = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('a consent record', () => {
  it('goes by beacon to POST /2/consent/ as a form, and is not kept', async () => {
    const sendBeacon = vi.fn(() => true);
    const fetch = vi.fn<typeof globalThis.fetch>();
    recorder({ sendBeacon, fetch }).record(record(3));
    await settled();
    expect(sendBeacon).toHaveBeenCalledTimes(1);
    const [url, body] = sendBeacon.mock.calls[0] as unknown as [
      string,
      URLSearchParams,
    ];
    expect(url).toBe('https://api.vigil.example/2/consent/');
    expect(body).toBeInstanceOf(URLSearchParams);
    expect(Object.fromEntries(body)).toEqual({
      consent_id: '0b6c1a5e-3f4d-4c2b-9a8e-1d2c3b4a5f60',
      choice: '1',
      revision: '3',
      source: 'modal',
      path: '/signup',
    });
    expect(fetch).not.toHaveBeenCalled();
    expect(localStorage.getItem(KEY)).toBeNull();
  });

  it.each([
    ['refuses it', () => false],
    [
      'throws',
      () => {
        throw new TypeError('beacon');
      },
    ],
  ])(
    'goes by fetch with keepalive when the beacon %s',
    async (_how, beacon) => {
      const fetch = vi.fn<typeof globalThis.fetch>(() =>
        Promise.resolve(new Response(null, { status: 204 })),
      );
      recorder({ sendBeacon: beacon, fetch }).record(record(2));
      await settled();
      expect(fetch).toHaveBeenCalledTimes(1);
      const [url, init] = fetch.mock.calls[0] ?? [];
      expect(url).toBe('https://api.vigil.example/2/consent/');
      expect(init).toMatchObject({ method: 'POST', keepalive: true });
      expect(String(init?.body)).toContain('choice=0');
      expect(localStorage.getItem(KEY)).toBeNull();
    },
  );

  it('goes by fetch where there is no beacon, to the page’s own origin by default', async () => {
    const fetch = vi.fn<typeof globalThis.fetch>(() =>
      Promise.resolve(new Response(null, { status: 204 })),
    );
    recorder({ apiOrigin: '', fetch }).record(record());
    await settled();
    expect(fetch.mock.calls[0]?.[0]).toBe('/2/consent/');
  });

  it('that fails is kept, and sent again on the next load', async () => {
    const failing = vi.fn<typeof globalThis.fetch>(() =>
      Promise.reject(new TypeError('Failed to fetch')),
    );
    expect(() =>
      recorder({ sendBeacon: () => false, fetch: failing }).record(record(5)),
    ).not.toThrow();
    await settled();
    expect(pending()).toEqual([record(5)]);

    // A server error counts as not delivered too.
    const erring = vi.fn<typeof globalThis.fetch>(() =>
      Promise.resolve(new Response(null, { status: 503 })),
    );
    recorder({ fetch: erring }).sendPending();
    await settled();
    expect(erring).toHaveBeenCalledTimes(1);
    expect(pending()).toEqual([record(5)]);

    const sendBeacon = vi.fn(() => true);
    recorder({ sendBeacon }).sendPending();
    await settled();
    expect(sendBeacon).toHaveBeenCalledTimes(1);
    expect(localStorage.getItem(KEY)).toBeNull();
  });

  it(`keeps the newest ${PENDING_RECORDS_MAX} that could not be sent`, async () => {
    const failing = recorder({ sendBeacon: () => false });
    for (let n = 1; n <= PENDING_RECORDS_MAX + 2; n += 1) {
      failing.record(record(n));
    }
    await settled();
    expect(pending()).toEqual(
      Array.from({ length: PENDING_RECORDS_MAX }, (_, i) => record(i + 3)),
    );
  });

  it('is still sent when storage throws, and nothing throws at the page', async () => {
    const sendBeacon = vi.fn(() => true);
    const broken = recorder({
      sendBeacon,
      storage: () => {
        throw new DOMException('denied', 'SecurityError');
      },
    });
    expect(() => broken.record(record())).not.toThrow();
    expect(() => broken.sendPending()).not.toThrow();
    await settled();
    expect(sendBeacon).toHaveBeenCalledTimes(1);
  });

  it('ignores kept entries that are not records', async () => {
    localStorage.setItem(KEY, JSON.stringify([{ choice: 'maybe' }, 7]));
    const sendBeacon = vi.fn(() => true);
    recorder({ sendBeacon }).sendPending();
    await settled();
    expect(sendBeacon).not.toHaveBeenCalled();
  });

  it('whose sender cannot be fetched (offline) is kept, and sent on the next load', async () => {
    const sendBeacon = vi.fn(() => true);
    const offline = recorder({
      sendBeacon,
      loadSender: () => Promise.reject(new TypeError('Failed to fetch')),
    });
    expect(() => offline.record(record(4))).not.toThrow();
    await settled();
    expect(sendBeacon).not.toHaveBeenCalled();
    expect(pending()).toEqual([record(4)]);

    recorder({ sendBeacon }).sendPending();
    await settled();
    expect(sendBeacon).toHaveBeenCalledTimes(1);
    expect(localStorage.getItem(KEY)).toBeNull();
  });

  it('fetches no sender when nothing is kept', async () => {
    const loadSender = vi.fn(async () => sender);
    recorder({ loadSender }).sendPending();
    await settled();
    expect(loadSender).not.toHaveBeenCalled();
  });
});
