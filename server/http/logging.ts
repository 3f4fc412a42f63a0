/**
 * What the service's log lines may say (docs/security.md, "Personal data
 * in logs"): no e-mail address, name, token or session ever appears in one.
 *
 * - A request is logged once, when it is answered, by method and path
 *   only: the query string is dropped, because the sign-up page's address
 *   may carry `name` and `email` to prefill (R2.1), and no header is logged
 *   (cookies carry the one-time token and the session).
 * - The client's address is logged as its network, /24 or /48, as the
 *   consent records store it (server/http/clientNetwork.ts `networkOf`): enough
 *   to see abuse from one network, not to single out one subscriber.
 * - Bodies are never logged.
 * - An error is logged by its type, message, code and stack; the fields a
 *   database driver adds (`detail` quotes the offending row, `where`,
 *   `parameters`…) are left out, and so is a cause's message, which may
 *   quote a value; only the cause's type and code remain.
 */
import {
  LogController,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
} from 'fastify';
import { networkOf } from './clientNetwork';

interface LoggableRequest {
  method?: string;
  url?: string;
  ip?: string;
}

/** An error with the fields a driver or Node may add. */
type LoggableError = Error & { code?: unknown };

/**
 * A request as it may be logged: method and path, and the client's network.
 *
 * @param request Fastify's request (`ip` as Fastify reads it: behind a
 *   trusted proxy, the forwarded address)
 * @returns `{ method, path, remoteNetwork }`, the path without its query
 *   and the network in CIDR notation (`203.0.113.0/24`, `2001:db8:1::/48`)
 */
export function requestForLog(request: LoggableRequest) {
  return {
    method: request.method,
    path: request.url?.split('?', 1)[0],
    remoteNetwork: request.ip === undefined ? undefined : networkOf(request.ip),
  };
}

function causeForLog(cause: unknown) {
  if (typeof cause !== 'object' || cause === null) return undefined;
  const { name, code } = cause as Partial<LoggableError>;
  return { type: name, code };
}

/** An error as it may be logged (see the module's comment). */
export function errorForLog(error: LoggableError) {
  return {
    type: error.name,
    message: error.message,
    stack: error.stack ?? '',
    code: error.code,
    cause: causeForLog(error.cause),
  };
}

/**
 * Fastify's request log lines, one per request: none when it arrives, one
 * when it is answered (`answered`, with the status and the milliseconds
 * taken), instead of Fastify's two. Errors the handler raised are logged
 * by the service's error handler (server/app.ts).
 */
export class OneLinePerRequest extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    const line = {
      req: request,
      statusCode: reply.statusCode,
      ms: reply.elapsedTime,
    };
    if (error) reply.log.error({ ...line, err: error }, 'answered');
    else reply.log.info(line, 'answered');
  }
}

/**
 * The Fastify logger options of the service: pino, with the serializers
 * above.
 *
 * @param enabled false for no log at all (the tests' servers)
 */
export function loggerOptions(
  enabled: boolean,
): FastifyServerOptions['logger'] {
  if (!enabled) return false;
  return {
    serializers: {
      req: requestForLog,
      err: errorForLog,
    },
  };
}
