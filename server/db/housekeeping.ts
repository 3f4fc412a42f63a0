/**
 * Housekeeping (ADR-0089): every few minutes each instance deletes what has
 * expired. Each feature registers its own deletes
 * (`app.housekeeping.add`), so that this list knows no table; the
 * embedded engine's VACUUM runs last, after the deletes.
 */
import type { FastifyInstance } from 'fastify';
import fastifyPlugin from 'fastify-plugin';

/**
 * How often the service runs the features' deletes of what has expired
 * (ADR-0089), in milliseconds.
 */
export const HOUSEKEEPING_INTERVAL_MS = 5 * 60 * 1000;

/** What the features register their deletes with (`app.housekeeping`). */
export interface Housekeeping {
  /**
   * Adds a delete to every pass, after those added before it.
   *
   * @param what what it deletes, for the warning when it fails
   */
  add(what: string, run: () => Promise<unknown>): void;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The periodic deletes (server/db/housekeeping.ts). */
    housekeeping: Housekeeping;
  }
}

async function housekeeping(
  app: FastifyInstance,
  { intervalMs }: { intervalMs?: number | undefined },
): Promise<void> {
  const deletes: (readonly [string, () => Promise<unknown>])[] = [];
  app.decorate('housekeeping', {
    add(what, run) {
      deletes.push([what, run]);
    },
  } satisfies Housekeeping);
  // Each instance deletes what has expired; the deletes touch nothing that
  // still works, so instances on one database may overlap (ADR-0089). One after
  // another, so that a delete's later batches do not queue behind the
  // VACUUM, and the embedded engine's one connection serves requests
  // between the batches (ADR-0111). A pass still running when the next is due
  // is not doubled. A pass reads the list when it runs, so the deletes of
  // features registered after this plugin are in every pass.
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    void (async () => {
      const pass = [
        ...deletes,
        // Last, after the deletes: the embedded engine has no autovacuum.
        ['dead rows (the embedded engine)', () => app.database.vacuum()],
      ] as const;
      for (const [what, run] of pass) {
        await run().catch((error: Error) =>
          app.log.warn(error, `could not delete ${what}`),
        );
      }
    })().finally(() => {
      running = false;
    });
  }, intervalMs ?? HOUSEKEEPING_INTERVAL_MS).unref();
  app.addHook('onClose', async () => {
    clearInterval(timer);
  });
}

/**
 * Decorates the service with `housekeeping`, and runs its passes until the
 * service closes. Needs the database plugin (./plugin.ts).
 */
export const housekeepingPlugin = fastifyPlugin(housekeeping, {
  name: 'housekeeping',
  dependencies: ['database'],
});
