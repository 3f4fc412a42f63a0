/**
 * A wake names its lane (server/outbox/deliverer.ts, ADR-0130): a sign-up
 * queues one mail and tells the outbox so, and only the mail lane looks
 * for it; a wake without a lane (a state change fans out to every
 * channel) makes both look. An idle lane's claim is a statement on the
 * database; on the embedded engine, on the service's own thread, once for
 * every sign-up's wake (issue 60's bench:alerts: ten a second at 8
 * clients).
 *
 * The outbox's own worker and repository over the test's database; the
 * claims are counted by a spy that passes each to the repository. The
 * clock is the test's (fake timers): no poll falls due, and the least
 * time between two claims has passed before each wake.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { silentLog as silent } from '../support/silentLog';
import { scratchDatabase } from '../../../harness/page/scratchDatabase';
import { openServiceDatabase } from '../../../server/schema';
import { deliverer } from '../../../server/outbox/deliverer';
import {
  deliveriesRepository,
  type Lane,
} from '../../../server/outbox/deliveries';

afterEach(() => {
  vi.useRealTimers();
});

describe('a wake', () => {
  it('makes only its lane look: a mail wakes no claim of POSTs; a wake without a lane, both', async () => {
    const database = await openServiceDatabase(await scratchDatabase());
    try {
      const repository = deliveriesRepository(database.db);
      const claims: Lane[] = [];
      /** Claims sent to the database and not answered yet. */
      let inFlight = 0;
      vi.useFakeTimers({
        toFake: ['setTimeout', 'clearTimeout', 'performance'],
      });
      const worker = deliverer(
        {
          ...repository,
          claim(limit, leaseMs, lane) {
            claims.push(lane);
            inFlight += 1;
            return repository
              .claim(limit, leaseMs, lane)
              .finally(() => (inFlight -= 1));
          },
        },
        {
          productName: 'Vigil',
          publicUrl: 'https://vigil.test',
          mailFrom: 'alerts@vigil.test',
          mail: undefined,
          post: () => {
            throw new Error('nothing is posted here');
          },
          renderers: new Map(),
          // No poll within the test.
          pollMs: 24 * 3_600_000,
          embedded: true,
          log: silent,
        },
      );
      /**
       * Runs the timers due within a second (past the least time between
       * two claims, 100 ms), then waits for the database's answers to the
       * claims they started (a PostgreSQL server answers over a socket,
       * on no timer).
       */
      const settle = async () => {
        await vi.advanceTimersByTimeAsync(1_000);
        await vi.waitFor(() => expect(inFlight).toBe(0));
      };
      await worker.start();
      await settle();
      // Each lane looks once at its start.
      expect(claims.toSorted()).toEqual(['http', 'mail']);
      /** The lanes that looked after `wake`. */
      const looked = async (wake: () => void) => {
        claims.length = 0;
        wake();
        await settle();
        return claims.toSorted();
      };
      expect(await looked(() => worker.wake('mail'))).toEqual(['mail']);
      expect(await looked(() => worker.wake('http'))).toEqual(['http']);
      expect(await looked(() => worker.wake())).toEqual(['http', 'mail']);
      await worker.stop();
    } finally {
      vi.useRealTimers();
      await database.close();
    }
  });
});
