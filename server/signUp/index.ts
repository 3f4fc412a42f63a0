/**
 * `POST /2/account/signup/` (docs/contract.md, "HTTP"), as a Fastify
 * plugin: the form read by the sign-up's rules (./signUpRules.ts), the
 * captcha verified (./captcha.ts), the account created with its token,
 * its watch and its confirmation mail in one statement (server/accounts/),
 * and the outbox and the monitor woken. The rest of the service
 * reaches the sign-up through this file only.
 */
import type { FastifyInstance } from 'fastify';
import fastifyPlugin from 'fastify-plugin';
import type { CaptchaVerification } from './captcha';
import { registerSignUpApi } from './signUpApi';

export type { CaptchaVerification } from './captcha';
export { BODY_LIMIT_BYTES } from './signUpApi';

/** What the plugin needs of the service. */
export interface SignUpPluginOptions {
  /** Sign-ups accepted per client IP per 15 minutes (`SIGNUP_RATE_LIMIT`). */
  rateLimit: number;
  /**
   * How tokens are verified; undefined: not at all, which only Google's
   * test key allows (server/environment.ts).
   */
  captcha?: CaptchaVerification | undefined;
}

async function signUp(
  app: FastifyInstance,
  options: SignUpPluginOptions,
): Promise<void> {
  await registerSignUpApi(app, {
    accounts: app.accounts.repository,
    cookies: app.accounts.cookies,
    // A sign-up queued its confirmation mail, and its site is due.
    wake: () => {
      app.outbox.wake('email');
      app.monitor.wake();
    },
    rateLimit: options.rateLimit,
    ...(options.captcha && { captcha: options.captcha }),
  });
}

/**
 * Registers the sign-up API on the service. Needs accounts, the outbox,
 * the monitor and the rate limit.
 */
export const signUpPlugin = fastifyPlugin(signUp, {
  name: 'signUp',
  dependencies: ['accounts', 'outbox', 'monitor', 'rate limit'],
});
