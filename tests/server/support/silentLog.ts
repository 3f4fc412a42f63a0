/**
 * A logger that says nothing, for the tests that build a worker of the
 * service by hand (the leased workers' loop, the outbox's deliverer)
 * rather than through Fastify, whose logger they otherwise take.
 */
import type { FastifyBaseLogger } from 'fastify';

/** Fastify's logger interface, every level a no-op (only those the workers call). */
export const silentLog = {
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  debug: () => undefined,
} as unknown as FastifyBaseLogger;
