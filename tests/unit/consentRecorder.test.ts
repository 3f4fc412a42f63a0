// @vitest-environment jsdom
/**
 * Sending the proof of a consent choice (src/consent/consentRecorder.ts with its
 * sender, src/consent/consentSender.ts; issue 23, ADR-0068, issue 35): with
 * `fetch` and `keepalive` to the page's own origin; a record is forgotten only
 * once the service answered 2xx (or refused it for good with a 4xx that a
 * repeat cannot change); one the service did not store, or whose sender
 * could not be fetched, is kept and sent on the next load; nothing ever
 * throws at the visitor. The network is the edge: replaced by fakes here,
 * real in tests/browser/consent.test.ts.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ConsentRecordRequest } from '../../contract/consentRecord';
import {
  createConsentRecorder,
  PENDING_RECORDS_MAX,
  type ConsentRecorderOptions,
} from '../../src/consent/consentRecorder';
import * as sender from '../../src/consent/consentSender';

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

/** A network that answers every request with `status`. */
const answering = (status: number) =>
  vi.fn<typeof globalThis.fetch>(() =>
    Promise.resolve(new Response(null, { status })),
  );

describe('a consent record', () => {
  it('goes by fetch with keepalive to POST /2/consent/ on the page’s origin, as a form, and is forgotten once stored', async () => {
    const fetch = answering(204);
    recorder({ fetch }).record(record(3));
    await settled();
    expect(fetch).toHaveBeenCalledTimes(1);
    const [url, init] = fetch.mock.calls[0] ?? [];
    expect(url).toBe('/2/consent/');
    expect(init).toMatchObject({
      method: 'POST',
      keepalive: true,
      credentials: 'omit',
    });
    expect(init?.body).toBeInstanceOf(URLSearchParams);
    expect(Object.fromEntries(init?.body as URLSearchParams)).toEqual({
      consent_id: '0b6c1a5e-3f4d-4c2b-9a8e-1d2c3b4a5f60',
      choice: '1',
      revision: '3',
      source: 'modal',
      path: '/signup',
    });
    expect(localStorage.getItem(KEY)).toBeNull();
  });

  it.each([
    [
      'a network failure',
      () => Promise.reject(new TypeError('Failed to fetch')),
    ],
    [
      'a rate limit (429)',
      () => Promise.resolve(new Response(null, { status: 429 })),
    ],
    [
      'a server error (503)',
      () => Promise.resolve(new Response(null, { status: 503 })),
    ],
    [
      'a time-out (408)',
      () => Promise.resolve(new Response(null, { status: 408 })),
    ],
    [
      'a redirect the network would not follow',
      () =>
        Promise.resolve(Response.redirect('https://elsewhere.example/', 302)),
    ],
  ])(
    'is kept after %s, and sent again on the next load',
    async (_what, fails) => {
      const failing = vi.fn<typeof globalThis.fetch>(fails);
      expect(() =>
        recorder({ fetch: failing }).record(record(5)),
      ).not.toThrow();
      await settled();
      expect(failing).toHaveBeenCalledTimes(1);
      expect(pending()).toEqual([record(5)]);

      const fetch = answering(204);
      recorder({ fetch }).sendPending();
      await settled();
      expect(fetch).toHaveBeenCalledTimes(1);
      expect(localStorage.getItem(KEY)).toBeNull();
    },
  );

  it('refused for good (400) is forgotten: sending it again cannot change the answer', async () => {
    const fetch = answering(400);
    recorder({ fetch }).record(record(2));
    await settled();
    expect(fetch).toHaveBeenCalledTimes(1);
    expect(localStorage.getItem(KEY)).toBeNull();
  });

  it('forgets only the records the service stored', async () => {
    const fetch = vi.fn<typeof globalThis.fetch>((_url, init) =>
      Promise.resolve(
        new Response(null, {
          status: String(init?.body).includes('revision=2') ? 503 : 204,
        }),
      ),
    );
    localStorage.setItem(
      KEY,
      JSON.stringify([record(1), record(2), record(3)]),
    );
    recorder({ fetch }).sendPending();
    await settled();
    expect(fetch).toHaveBeenCalledTimes(3);
    expect(pending()).toEqual([record(2)]);
  });

  it(`keeps the newest ${PENDING_RECORDS_MAX} that could not be stored`, async () => {
    const failing = recorder({ fetch: answering(503) });
    for (let n = 1; n <= PENDING_RECORDS_MAX + 2; n += 1) {
      failing.record(record(n));
    }
    await settled();
    expect(pending()).toEqual(
      Array.from({ length: PENDING_RECORDS_MAX }, (_, i) => record(i + 3)),
    );
  });

  it('is still sent when storage throws, and nothing throws at the page', async () => {
    const fetch = answering(204);
    const broken = recorder({
      fetch,
      storage: () => {
        throw new DOMException('denied', 'SecurityError');
      },
    });
    expect(() => broken.record(record())).not.toThrow();
    expect(() => broken.sendPending()).not.toThrow();
    await settled();
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  it('ignores kept entries that are not records', async () => {
    localStorage.setItem(KEY, JSON.stringify([{ choice: 'maybe' }, 7]));
    const fetch = answering(204);
    recorder({ fetch }).sendPending();
    await settled();
    expect(fetch).not.toHaveBeenCalled();
  });

  it('whose sender cannot be fetched (offline) is kept, and sent on the next load', async () => {
    const fetch = answering(204);
    const offline = recorder({
      fetch,
      loadSender: () => Promise.reject(new TypeError('Failed to fetch')),
    });
    expect(() => offline.record(record(4))).not.toThrow();
    await settled();
    expect(fetch).not.toHaveBeenCalled();
    expect(pending()).toEqual([record(4)]);

    recorder({ fetch }).sendPending();
    await settled();
    expect(fetch).toHaveBeenCalledTimes(1);
    expect(localStorage.getItem(KEY)).toBeNull();
  });

  it('sent by its sender’s own chunk (src/consent/consentSender.ts) when the page names no other', async () => {
    const fetch = answering(204);
    createConsentRecorder({
      pendingKey: KEY,
      storage: () => localStorage,
      fetch,
    }).record(record(6));
    await vi.waitFor(() => expect(fetch).toHaveBeenCalledTimes(1));
    await vi.waitFor(() => expect(localStorage.getItem(KEY)).toBeNull());
  });

  it.each([
    ['a record not in a list', JSON.stringify(record(9))],
    ['a string', JSON.stringify('accepted')],
  ])('ignores %s kept under its key', async (_what, kept) => {
    localStorage.setItem(KEY, kept);
    const fetch = answering(204);
    expect(() => recorder({ fetch }).sendPending()).not.toThrow();
    await settled();
    expect(fetch).not.toHaveBeenCalled();
  });

  it('kept beside entries that are not records (null among them) is still sent', async () => {
    localStorage.setItem(
      KEY,
      JSON.stringify([null, { choice: 'maybe' }, 7, record(8)]),
    );
    const fetch = answering(204);
    recorder({ fetch }).sendPending();
    await settled();
    expect(fetch).toHaveBeenCalledTimes(1);
    expect(String(fetch.mock.calls[0]?.[1]?.body)).toContain('revision=8');
  });

  it('fetches no sender when nothing is kept', async () => {
    const loadSender = vi.fn(async () => sender);
    recorder({ loadSender }).sendPending();
    await settled();
    expect(loadSender).not.toHaveBeenCalled();
  });
});
