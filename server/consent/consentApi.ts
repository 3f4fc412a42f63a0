/**
 * Proof of consent, `POST /2/consent/` (docs/contract.md, "HTTP"; ADR-0065):
 * the page reports each choice a visitor makes, and the
 * service appends it to the consent records with what it knows itself (its
 * clock, the client's network, the user agent). Form encoding only, at most
 * 1 KiB, rate-limited per client address across every instance on the
 * database, like the sign-up API.
 */
import type { FastifyInstance } from 'fastify';
import { CONSENT_RECORD_PATH } from '../../contract/consentRecord';
import { API_CODES } from '../../contract/apiCodes';
import type { ConsentRecordsRepository } from './consentRecords';
import { networkOf } from '../http/clientNetwork';
import { readConsentRecord, storedUserAgent } from './consentRules';
import { acceptFormBodies } from '../http/formBody';
import { refusal } from '../http/errorAnswer';
import type { UntrustedBody } from '../http/formBody';

/** A record is about 150 bytes; a kilobyte leaves room and nothing more. */
export const CONSENT_BODY_LIMIT_BYTES = 1024;
/** Records accepted per client address per 15 minutes, by default. */
export const CONSENT_RATE_LIMIT = 30;
const RATE_LIMIT_WINDOW = '15 minutes';

export interface ConsentApiOptions {
  /** Where records are appended. */
  records: ConsentRecordsRepository;
  /** Records per client address per 15 minutes (default 30). */
  rateLimit?: number;
}

/**
 * Registers the endpoint on `app`, in a context of its own. Needs
 * `@fastify/rate-limit` registered on `app` first.
 */
export async function registerConsentApi(
  app: FastifyInstance,
  options: ConsentApiOptions,
): Promise<void> {
  await app.register(async (api) => {
    // Form encoding only, as the sign-up API (server/signUp/signUpApi.ts): what
    // the page's fetch sends for URLSearchParams (src/consent/consentSender.ts).
    await acceptFormBodies(api, CONSENT_BODY_LIMIT_BYTES);

    api.post(
      CONSENT_RECORD_PATH,
      {
        bodyLimit: CONSENT_BODY_LIMIT_BYTES,
        config: {
          rateLimit: {
            max: options.rateLimit ?? CONSENT_RATE_LIMIT,
            timeWindow: RATE_LIMIT_WINDOW,
            // Thrown by the plugin; the error handler writes the answer.
            errorResponseBuilder: (_request, context) =>
              Object.assign(new Error('rate limit reached'), {
                statusCode: context.statusCode,
              }),
          },
        },
      },
      async (request, reply) => {
        const body = request.body;
        if (typeof body !== 'object' || body === null) {
          return reply
            .code(400)
            .send(refusal(API_CODES.invalidParameter, 'body'));
        }
        const record = readConsentRecord(body as UntrustedBody);
        if ('success' in record) return reply.code(400).send(record);
        // Committed before the answer; a database failure is raised to the
        // error handler (503), and the page tries again on its next load.
        await options.records.append(record, {
          ipNetwork: networkOf(request.ip),
          userAgent: storedUserAgent(request.headers['user-agent']),
        });
        return reply.code(204).header('cache-control', 'no-store').send();
      },
    );
  });
}
