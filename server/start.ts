/**
 * `npm start`: serves `dist/` and the local API on http://localhost:$PORT,
 * configured by the environment variables of docs/contract.md
 * ("Configuration").
 */
import { buildServer } from './app';
import { positiveInteger, serverOptionsFrom } from './environment';

const port = positiveInteger(process.env, 'PORT', 1234);
const app = await buildServer({
  ...serverOptionsFrom(
    process.env,
    new URL('../dist', import.meta.url).pathname,
  ),
  logger: true,
});
await app.listen({ port, host: 'localhost' });
console.log(`Sign-up page: http://localhost:${port}/signup`);
