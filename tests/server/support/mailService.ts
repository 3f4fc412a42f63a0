/**
 * A sign-up service that sends its mail to a real SMTP server of the test's
 * own (harness/mail/smtpSink.ts), and the steps of the mail tests:
 * sign up, redeem the first sign-in for a session, read a mail's link.
 */
import type {
  FastifyInstance,
  InjectOptions,
  LightMyRequestResponse,
} from 'fastify';
import type { ParsedMail } from 'mailparser';
import { expect } from 'vitest';
import type { ServerOptions } from '../../../server/app';
import type { DkimSettings, MailOptions } from '../../../server/outbox/index';
import { FORM, apiServer, signUpForLogin } from './apiServer';
import { startSmtpSink, type SmtpSink } from '../../../harness/mail/smtpSink';

/** Where the service says it is: every link in a mail must start with it. */
export const PUBLIC_URL = 'https://vigil.example';
/** The session cookie's name on an https `PUBLIC_URL` (ADR-0091, ADR-0109). */
export const SESSION_COOKIE = '__Host-Vigil_SESSION';

/**
 * The service's `inject`, sending what a browser at {@link PUBLIC_URL}
 * sends: `Host: vigil.example` unless the test names another, since the
 * service answers no other host (ADR-0109).
 */
export function atPublicHost(app: FastifyInstance): FastifyInstance['inject'] {
  const inject = app.inject.bind(app);
  const host = new URL(PUBLIC_URL).host;
  return ((options: InjectOptions) =>
    inject({
      ...options,
      headers: { host, ...options.headers },
    })) as FastifyInstance['inject'];
}

/** What a test may change of {@link sinkMailOptions}: any option, and DKIM. */
export type SinkMailOverrides = Partial<MailOptions> & { dkim?: DkimSettings };

/** The mail options of a service sending to `sink`, retrying within a second. */
export function sinkMailOptions(
  sink: SmtpSink,
  { dkim, ...overrides }: SinkMailOverrides = {},
): MailOptions {
  return {
    publicUrl: PUBLIC_URL,
    from: 'no-reply@vigil.example',
    transport: { kind: 'smtp', url: sink.url, ...(dkim && { dkim }) },
    pollIntervalMs: 60_000,
    retry: { firstDelayMs: 20, maxDelayMs: 200 },
    ...overrides,
  };
}

/** A service on its own scratch database and its own SMTP sink. */
export interface MailService {
  app: FastifyInstance;
  sink: SmtpSink;
  /** Mails the sink received for an address (any case), in order. */
  mailsTo(email: string): ParsedMail[];
  /** Sends every due mail, then resolves: the sink's count is final. */
  drain(): Promise<void>;
  close(): Promise<void>;
}

/** Starts a sink and a service sending to it. */
export async function startMailService(
  options: Partial<ServerOptions> = {},
  mail: SinkMailOverrides = {},
): Promise<MailService> {
  const sink = await startSmtpSink();
  const app = await apiServer({
    mail: sinkMailOptions(sink, mail),
    ...options,
  });
  app.inject = atPublicHost(app);
  return {
    app,
    sink,
    mailsTo: (email) =>
      sink.messages.filter(
        (message) =>
          message.to !== undefined &&
          [message.to]
            .flat()
            .some((to) =>
              to.value.some(
                (box) => box.address?.toLowerCase() === email.toLowerCase(),
              ),
            ),
      ),
    async drain() {
      await app.outbox.deliverer?.drain();
    },
    async close() {
      await app.close();
      await sink.stop();
    },
  };
}

/**
 * The newest mail to an address, once the sender has sent what is due:
 * the latest queued, by the outbox row in its Message-ID
 * (`<vigil-{row}-{ms}@host>`), since two mails sent side by side may
 * arrive in either order.
 *
 * @throws Error when no mail reached the address
 */
export async function lastMailTo(
  service: MailService,
  email: string,
): Promise<ParsedMail> {
  await service.drain();
  const row = (mail: ParsedMail) =>
    Number(/^<[a-z0-9]+-(\d+)-/.exec(mail.messageId ?? '')?.[1] ?? -1);
  const mail = service
    .mailsTo(email)
    .sort((a, b) => row(a) - row(b))
    .at(-1);
  if (!mail) throw new Error(`no mail to ${email}`);
  return mail;
}

/**
 * The one link of a mail: in the plain text, and the same in the HTML.
 *
 * @throws the assertion error when the mail has no link, or the two parts
 *   disagree
 */
export function linkOf(mail: ParsedMail): URL {
  const links = (mail.text ?? '').match(/https?:\/\/\S+/g) ?? [];
  expect(links).toHaveLength(1);
  const link = links[0] ?? '';
  expect(typeof mail.html === 'string' ? mail.html : '').toContain(
    `href="${link}"`,
  );
  return new URL(link);
}

/** A mail's link as a path and query, for `inject`. */
export function pathOf(mail: ParsedMail): string {
  const url = linkOf(mail);
  return `${url.pathname}${url.search}`;
}

/** A mail's token. */
export function tokenOf(mail: ParsedMail): string {
  return linkOf(mail).searchParams.get('token') ?? '';
}

/**
 * Signs up through the API and redeems the first sign-in at `/`.
 *
 * @returns the sign-up's fields and the `Cookie` header of its session
 */
export async function signUpAndSignIn(
  app: FastifyInstance,
  fields: Record<string, string> = {},
): Promise<{ email: string; body: URLSearchParams; cookie: string }> {
  const { body, login } = await signUpForLogin(app, fields);
  const page = await app.inject({
    method: 'GET',
    url: '/',
    headers: { cookie: login },
  });
  const session = sessionCookiePair(page);
  expect(session).toBeDefined();
  return {
    email: body.get('email') ?? '',
    body,
    cookie: session ?? '',
  };
}

/**
 * The session cookie an answer sets, if any, as `name=value`: under
 * {@link SESSION_COOKIE} on an https `PUBLIC_URL`, under the bare
 * `Vigil_SESSION` on an http one (ADR-0109).
 */
export function sessionCookiePair(
  response: LightMyRequestResponse,
): string | undefined {
  const header = response.headers['set-cookie'];
  const lines = header === undefined ? [] : [header].flat();
  for (const line of lines) {
    const match = /^((?:__Host-)?Vigil_SESSION)=([^;]+)/.exec(line);
    if (match) return `${match[1] ?? ''}=${match[2] ?? ''}`;
  }
  return undefined;
}

/** The value of the session cookie an answer sets, if any. */
export function sessionCookie(
  response: LightMyRequestResponse,
): string | undefined {
  return sessionCookiePair(response)?.split('=')[1];
}

/** The text of the element with a test selector, or undefined when absent. */
export function hook(html: string, testId: string): string | undefined {
  const match = new RegExp(
    `<(\\w+)[^>]*data-testid="${testId}"[^>]*>([\\s\\S]*?)</\\1>`,
  ).exec(html);
  return match?.[2]
    ?.replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * Asks for a sign-in link at `/signin`, as the page's form does, from one
 * client address (the limits count by it, ADR-0097).
 */
export function askSignIn(
  app: FastifyInstance,
  email: string,
  remoteAddress = '203.0.113.9',
) {
  return app.inject({
    method: 'POST',
    url: '/signin',
    remoteAddress,
    headers: { 'content-type': FORM, 'sec-fetch-site': 'same-origin' },
    payload: new URLSearchParams({ email }).toString(),
  });
}

/** A form's fields: by name, or as pairs where a field repeats (`site`). */
export type FormFields =
  Readonly<Record<string, string>> | readonly (readonly [string, string])[];

/** Posts a form of the account pages as the page's own form would. */
export function postForm(
  app: FastifyInstance,
  url: string,
  fields: FormFields,
  headers: Record<string, string> = {},
) {
  return app.inject({
    method: 'POST',
    url,
    headers: {
      'content-type': FORM,
      'sec-fetch-site': 'same-origin',
      ...headers,
    },
    payload: new URLSearchParams(
      fields as string[][] | Record<string, string>,
    ).toString(),
  });
}
