/**
 * The database as a Fastify plugin: opens it (./database.ts: PGlite in
 * `DATA_DIR`, or PostgreSQL at `DATABASE_URL`, running the migrations it
 * lacks), decorates the service with it (`app.database`), and closes it
 * when the service closes, after every feature registered after it has
 * closed what it opened (Fastify runs the root's `onClose` hooks last
 * added, first run). The decoration's type, the service's tables, is
 * declared by server/schema.ts, which merges the features' own.
 */
import type { FastifyInstance } from 'fastify';
import fastifyPlugin from 'fastify-plugin';
import { openDatabase, type DatabaseSettings } from './database';
import type { Migrations } from './migrate';

/** Where the database is, its migrations, and how long to wait for a server. */
export interface DatabasePluginOptions {
  settings: DatabaseSettings;
  /** Every feature's migrations, by name (server/schema.ts). */
  migrations: Migrations;
  /** How long to wait for a PostgreSQL server at start (ms; default 30 s). */
  startupWaitMs?: number | undefined;
}

async function database(
  app: FastifyInstance,
  { settings, migrations, startupWaitMs }: DatabasePluginOptions,
): Promise<void> {
  const opened: FastifyInstance['database'] = await openDatabase(
    settings,
    (message) => app.log.info(message),
    { startupWaitMs, migrations },
  );
  app.decorate('database', opened);
  app.addHook('onClose', async () => {
    await opened.close();
  });
}

/** Opens the database and decorates the service with it (`app.database`). */
export const databasePlugin = fastifyPlugin(database, { name: 'database' });
