/**
 * The account pages of a service, driven as a browser drives them: a page
 * asked for with the session's cookie, a form posted from the service's
 * own page ({@link postForm}: same origin, form-encoded), an account
 * signed up and signed in with its address confirmed, and the values of a
 * test selector on a page.
 */
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { postForm, signUpAndSignIn, type FormFields } from './mailService';

/**
 * The pages of the service `appOf` returns (asked each time, so that a
 * file may build its service in `beforeAll`).
 */
export function accountPages(appOf: () => FastifyInstance) {
  return {
    /** GET a page with a session cookie. */
    get(url: string, cookie: string) {
      return appOf().inject({ method: 'GET', url, headers: { cookie } });
    },

    /** A form posted from the service's own page, with a session cookie. */
    post(url: string, cookie: string, fields: FormFields = []) {
      return postForm(appOf(), url, fields, { cookie });
    },

    /**
     * An account signed up through the API with the site `url`, signed
     * in, its address marked confirmed in the database (how a magic link
     * confirms it is the mail tests' matter).
     */
    async confirmedAccount(url: string) {
      const app = appOf();
      const { cookie, email } = await signUpAndSignIn(app, { url });
      await sql`update accounts set confirmed_at = now()
                 where lower(email) = ${email.toLowerCase()}`.execute(
        app.database.db,
      );
      return { cookie, email };
    },
  };
}

/** Every value of a test selector on a page, in order, as text. */
export function hooks(html: string, testId: string): string[] {
  return [
    ...html.matchAll(
      new RegExp(
        `<(\\w+)[^>]*data-testid="${testId}"[^>]*>([\\s\\S]*?)</\\1>`,
        'g',
      ),
    ),
  ].map((match) =>
    (match[2] ?? '')
      .replace(/<[^>]+>/g, ' ')
      .replace(/\s+/g, ' ')
      .trim(),
  );
}
