/**
 * Starts the real local server (server/app.ts) on a free loopback port,
 * serving the page that the browser project's global setup built.
 */
import type { AddressInfo } from 'node:net';
import { buildServer } from '../../server/app';
import { TEST_DIST_DIR } from './paths';

export interface TestServer {
  /** e.g. `http://localhost:43123` */
  origin: string;
  close: () => Promise<void>;
}

export async function startTestServer(
  options: { rateLimit?: number } = {},
): Promise<TestServer> {
  const app = await buildServer({
    distDir: TEST_DIST_DIR,
    productName: 'Vigil',
    // Generous unless a test is about the limit: every test signs up.
    rateLimit: options.rateLimit ?? 1000,
  });
  await app.listen({ port: 0, host: 'localhost' });
  const { port } = app.server.address() as AddressInfo;
  return { origin: `http://localhost:${port}`, close: () => app.close() };
}
