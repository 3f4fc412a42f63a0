/**
 * What the service's log lines may say (docs/security.md, "Personal data
 * in logs"): no e-mail address, name, token or session ever appears in one.
 *
 * - A request is logged by method and path only: the query string is
 *   dropped, because the sign-up page's address may carry `name` and
 *   `email` to prefill (R2.1), and no header is logged (cookies carry the
 *   one-time token and the session).
 * - Bodies are never logged.
 * - An error is logged by its type, message, code and stack; the fields a
 *   database driver adds (`detail` quotes the offending row, `where`,
 *   `parameters`…) are left out, and so is a cause's message, which may
 *   quote a value; only the cause's type and code remain.
 */
import type { FastifyServerOptions } from 'fastify';

interface LoggableRequest {
  method?: string;
  url?: string;
  ip?: string;
}

/** An error with the fields a driver or Node may add. */
type LoggableError = Error & { code?: unknown };

/** A request as it may be logged: method and path, and the client address. */
export function requestForLog(request: LoggableRequest) {
  return {
    method: request.method,
    path: request.url?.split('?', 1)[0],
    remoteAddress: request.ip,
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
