/**
 * Which sign-up failures reach the error-reporting service (R7.4, ADR-0037,
 * ADR-0043): the general ones do; the API's expected answers (the rate limit, a
 * refused name, an e-mail address in use) are the product working, and are
 * neither reported nor a reason to fetch the SDK. Sentry's SDK is replaced by a
 * recorder of what would have been sent.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Failure } from '../../contract/signUp';
import { createErrorReporter } from '../../src/platform/errorReporting';

const sentry = vi.hoisted(() => ({
  captureMessage: vi.fn(),
  captureException: vi.fn(),
  startSentry: vi.fn(),
}));

vi.mock('../../src/platform/sentry', () => ({
  startSentry: sentry.startSentry.mockImplementation(() => ({
    captureMessage: sentry.captureMessage,
    captureException: sentry.captureException,
  })),
}));

const DSN = 'https://public@sentry.vigil.example/1';
const ORIGIN = 'https://vigil.example';

/** Lets the reporter's dynamic import and its `then` run. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

afterEach(() => {
  vi.clearAllMocks();
});

describe('reportFailure', () => {
  it.each<Failure>([
    { kind: 'rateLimited' },
    { kind: 'invalidName' },
    { kind: 'emailInUse' },
  ])(
    'drops the expected answer %o, without loading the SDK',
    async (failure) => {
      createErrorReporter(DSN, ORIGIN).reportFailure(failure);
      await settle();
      expect(sentry.startSentry).not.toHaveBeenCalled();
      expect(sentry.captureMessage).not.toHaveBeenCalled();
    },
  );

  it.each(['network', 'timeout', 'malformed', 'refused'] as const)(
    'reports a general failure (%s) by its reason',
    async (reason) => {
      createErrorReporter(DSN, ORIGIN).reportFailure({
        kind: 'general',
        reason,
      });
      await settle();
      expect(sentry.startSentry).toHaveBeenCalledWith({
        dsn: DSN,
        ownOrigin: ORIGIN,
      });
      expect(sentry.captureMessage).toHaveBeenCalledTimes(1);
      expect(sentry.captureMessage).toHaveBeenCalledWith(
        `sign-up failed: ${reason}`,
        { level: 'error', tags: { failure: reason } },
      );
    },
  );

  it('without a DSN, drops even a general failure', async () => {
    createErrorReporter(undefined, ORIGIN).reportFailure({
      kind: 'general',
      reason: 'network',
    });
    await settle();
    expect(sentry.startSentry).not.toHaveBeenCalled();
    expect(sentry.captureMessage).not.toHaveBeenCalled();
  });
});
