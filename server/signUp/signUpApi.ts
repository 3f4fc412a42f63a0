/**
 * The sign-up API, `POST /2/account/signup/` (docs/contract.md, "HTTP"):
 * form encoding only, rate-limited per client IP across every instance on
 * the database, the rules of server/signUp/signUpRules.ts, and the account with
 * its one-time token created by the accounts repository
 * (server/accounts/accounts.ts) before the answer is sent.
 */
import type { FastifyInstance } from 'fastify';
import {
  SIGN_UP_FIELDS,
  SIGN_UP_PATH,
  type SignUpAnswer,
} from '../../contract/signUp';
import { API_CODES } from '../../contract/apiCodes';
import { verifyCaptcha, type CaptchaVerification } from './captcha';
import { acceptFormBodies } from '../http/formBody';
import {
  AccountLimitError,
  type AccountsRepository,
  type ServiceCookies,
} from '../accounts/index';
import { refusal } from '../http/errorAnswer';
import type { UntrustedBody } from '../http/formBody';
import { readSignUp } from './signUpRules';

const RATE_LIMIT_WINDOW = '15 minutes';
// A sign-up form is a few hundred bytes; anything near this is abuse.
export const BODY_LIMIT_BYTES = 16 * 1024;

export interface SignUpApiOptions {
  /** Where accounts are created. */
  accounts: AccountsRepository;
  /** The service's cookies: the answer sets the login binding (ADR-0110). */
  cookies: ServiceCookies;
  /**
   * Tells the outbox a confirmation mail was queued, and the monitor
   * that a site is due (never waits).
   */
  wake: () => void;
  /** Sign-ups accepted per client IP per 15 minutes (`SIGNUP_RATE_LIMIT`). */
  rateLimit: number;
  /**
   * How tokens are verified (server/signUp/captcha.ts); undefined: not at all,
   * which only Google's test key allows (server/environment.ts).
   */
  captcha?: CaptchaVerification;
}

/**
 * Registers the API on `app`, in a context of its own. Needs
 * `@fastify/rate-limit` registered on `app` first.
 */
export async function registerSignUpApi(
  app: FastifyInstance,
  options: SignUpApiOptions,
): Promise<void> {
  // The API in a context of its own: it reads form encoding only
  // (docs/contract.md, "HTTP"; server/http/formBody.ts).
  await app.register(async (api) => {
    await acceptFormBodies(api, BODY_LIMIT_BYTES);

    api.post(
      SIGN_UP_PATH,
      {
        config: {
          rateLimit: {
            max: options.rateLimit,
            timeWindow: RATE_LIMIT_WINDOW,
            // Thrown by the plugin; the error handler writes the answer.
            errorResponseBuilder: (_request, context) =>
              Object.assign(new Error('rate limit reached'), {
                statusCode: context.statusCode,
              }),
          },
        },
      },
      async (request, reply): Promise<SignUpAnswer> => {
        const body = request.body;
        if (typeof body !== 'object' || body === null) {
          reply.code(400);
          return refusal(API_CODES.invalidParameter, 'body');
        }
        const account = readSignUp(body as UntrustedBody);
        if ('success' in account) {
          reply.code(400);
          return account;
        }
        // Before anything is stored; a verifier that cannot say raises
        // CaptchaUnavailableError, which the error handler answers 503.
        if (
          options.captcha &&
          !(await verifyCaptcha(options.captcha, account.captchaToken))
        ) {
          reply.code(400);
          return refusal(API_CODES.captchaInvalid, SIGN_UP_FIELDS.captchaToken);
        }
        let auth;
        try {
          // Committed before the answer: an acknowledged sign-up is never
          // lost (ADR-0045). A database failure is raised to the error handler.
          auth = await options.accounts.create({
            name: account.name,
            email: account.email,
            siteUrl: account.url,
            newsletter: account.newsletter,
            campaign: account.utmCampaign,
          });
        } catch (error) {
          if (!(error instanceof AccountLimitError)) throw error;
          reply.code(400);
          return refusal(API_CODES.invalidParameter, error.field);
        }
        if (!auth) {
          // ADR-0043: the address is taken; nothing else about the account.
          reply.code(409);
          return refusal(API_CODES.emailInUse, SIGN_UP_FIELDS.email);
        }
        // Its confirmation mail and its monitor were made by the same
        // statement (ADR-0095, ADR-0103).
        options.wake();
        // `/` redeems the token only beside this HttpOnly cookie, which a
        // sibling subdomain cannot plant (ADR-0110).
        options.cookies.setLoginBinding(reply, auth.token);
        return { success: true, data: { one_time_auth: auth } };
      },
    );
  });
}
