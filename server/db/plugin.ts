/**
 * The database as a Fastify plugin: opens it (./database.ts: PGlite in
 * `DATA_DIR`, or PostgreSQL at `DATABASE_URL`, running the migrations it
 * lacks), decorates the service with it (`app.database`), and closes it
 * when the service closes, after every feature registered after it has
 * closed what it opened (Fastify runs the root's `onClose` hooks last
 * added, first run).
 */
import type { FastifyInstance } from 'fastify';
import fastifyPlugin from 'fastify-plugin';
import { openDatabase, type Database, type DatabaseSettings } from './database';

declare module 'fastify' {
  interface FastifyInstance {
    /** The service's open database (server/db/database.ts). */
    database: Database;
  }
}

/** Where the database is, and how long to wait for a PostgreSQL server. */
export interface DatabasePluginOptions {
  settings: DatabaseSettings;
  /** How long to wait for a PostgreSQL server at start (ms; default 30 s). */
  startupWaitMs?: number | undefined;
}

async function database(
  app: FastifyInstance,
  { settings, startupWaitMs }: DatabasePluginOptions,
): Promise<void> {
  const opened = await openDatabase(
    settings,
    (message) => app.log.info(message),
    { startupWaitMs },
  );
  app.decorate('database', opened);
  app.addHook('onClose', async () => {
    await opened.close();
  });
}

/** Opens the database and decorates the service with it (`app.database`). */
export const databasePlugin = fastifyPlugin(database, { name: 'database' });
