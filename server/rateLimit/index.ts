/**
 * The rate limit (ADR-0039, ADR-0047): `@fastify/rate-limit` for the routes
 * that set a limit of their own, counted in the database, so every instance on
 * it shares one limit. The rest of the service reaches it through this
 * file only.
 */
export { countRequests, rateLimitPlugin } from './rateLimitStore';
export { RATE_LIMIT_MIGRATIONS } from './migrations/index';
export type { RateLimitTables } from './tables';
