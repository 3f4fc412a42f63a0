/**
 * The local server (server/app.ts) for the `server` test project: serving a
 * throwaway one-file page (these tests need no Parcel build), and what every
 * answer of the API must look like (docs/contract.md "HTTP").
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { scratchDatabase } from '../../../harness/page/scratchDatabase';
import { buildServer, type ServerOptions } from '../../../server/app';
import { GPC_PAGE_FILE } from '../../../server/http/pageRoutes';
import { SIGN_UP_PATH } from '../../../contract/signUp';

export const FORM = 'application/x-www-form-urlencoded';

let distDir: string | undefined;

/** The placeholder page, and its copy for `Sec-GPC: 1` (ADR-0074). */
export const PLACEHOLDER_PAGE =
  '<!doctype html><title>Create your account</title>';
export const PLACEHOLDER_GPC_PAGE =
  '<!doctype html><html data-gpc><title>Create your account</title>';

/**
 * One folder with an index.html and its copy for GPC, the same for every
 * run (nothing piles up).
 */
function placeholderDist(): string {
  if (!distDir) {
    distDir = join(tmpdir(), 'vigil-server-test-page');
    mkdirSync(distDir, { recursive: true });
    writeFileSync(join(distDir, 'index.html'), PLACEHOLDER_PAGE);
    writeFileSync(join(distDir, GPC_PAGE_FILE), PLACEHOLDER_GPC_PAGE);
  }
  return distDir;
}

/**
 * Builds the server (not listening) over a placeholder page and a scratch
 * database of the run's engine (harness/page/scratchDatabase.ts).
 *
 * @param options overrides; the rate limit defaults to one no test
 *   reaches, the database to a new empty one
 */
export async function apiServer(
  options: Partial<ServerOptions> = {},
): Promise<FastifyInstance> {
  return buildServer({
    distDir: placeholderDist(),
    productName: 'Vigil',
    rateLimit: 1_000_000,
    database: options.database ?? (await scratchDatabase()),
    ...options,
  });
}

let accounts = 0;
/** A valid sign-up with an e-mail address no other call returned. */
export function validSignUp(
  overrides: Record<string, string> = {},
): URLSearchParams {
  accounts += 1;
  return new URLSearchParams({
    name: 'Ada Lovelace',
    email: `ada.${process.pid}.${accounts}@example.com`,
    'g-recaptcha-response': 'token',
    newsletter: '1',
    url: 'https://example.com',
    ...overrides,
  });
}

/**
 * The `name=value` pairs of the cookies an answer sets, as a browser would
 * send them back (`Cookie` header syntax), without their attributes.
 */
export function cookiesSetBy(answer: {
  headers: Record<string, unknown>;
}): string[] {
  const header = answer.headers['set-cookie'];
  const lines =
    header === undefined ? [] : [header].flat().map((line) => String(line));
  return lines.map((line) => line.split(';', 1)[0] ?? '');
}

/**
 * Signs up through the API, as the page does.
 *
 * @param host the request's `Host` (default light-my-request's
 *   `localhost:80`)
 * @returns the fields sent, the one-time token and sid answered, and the
 *   cookies a browser sends back to `/`: `{product}Login` as the page
 *   writes it (js-cookie's encoding of the JSON, ADR-0030), and the login
 *   binding the answer set (ADR-0110)
 */
export async function signUpForLogin(
  app: FastifyInstance,
  fields: Record<string, string> = {},
  host?: string,
): Promise<{
  body: URLSearchParams;
  login: string;
  token: string;
  sid: string;
}> {
  const body = validSignUp(fields);
  const answer = await app.inject({
    method: 'POST',
    url: SIGN_UP_PATH,
    headers: { 'content-type': FORM, ...(host !== undefined && { host }) },
    payload: body.toString(),
  });
  expect(answer.statusCode, answer.body).toBe(200);
  const { token, sid } = (
    answer.json() as { data: { one_time_auth: { token: string; sid: string } } }
  ).data.one_time_auth;
  const login = [
    `VigilLogin=${encodeURIComponent(
      JSON.stringify({ VigilToken: token, VigilSID: sid }),
    )}`,
    ...cookiesSetBy(answer),
  ].join('; ');
  return { body, login, token, sid };
}

/** The two shapes of docs/contract.md "HTTP". */
export type ApiBody =
  | {
      success: true;
      data: { one_time_auth: { token: string; sid: string } };
    }
  | { success: false; code: string; info: string };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Why an answer breaks the contract, or undefined when it keeps it: JSON,
 * a success only with 200 and a token and sid, a failure only with a 4xx,
 * `success: false`, a `CSAPI_…` code and a string `info`, and nothing else.
 */
export function contractProblem(
  status: number,
  contentType: string | undefined,
  text: string,
): string | undefined {
  if (status >= 500) return `server error ${status}`;
  if (!contentType?.startsWith('application/json')) {
    return `content type ${contentType}`;
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return 'not JSON';
  }
  if (!isRecord(body)) return 'not an object';
  if (body.success === true) {
    const auth = isRecord(body.data) ? body.data.one_time_auth : undefined;
    if (status !== 200) return `success with ${status}`;
    if (Object.keys(body).sort().join() !== 'data,success') {
      return 'extra keys';
    }
    if (
      !isRecord(auth) ||
      typeof auth.token !== 'string' ||
      auth.token === '' ||
      typeof auth.sid !== 'string' ||
      auth.sid === ''
    ) {
      return 'success without token and sid';
    }
    return undefined;
  }
  if (status < 400 || status > 499) return `failure with ${status}`;
  if (Object.keys(body).sort().join() !== 'code,info,success') {
    return `keys ${Object.keys(body).join()}`;
  }
  if (body.success !== false) return 'success is not a boolean';
  if (typeof body.code !== 'string' || !/^CSAPI_[A-Z_]+$/.test(body.code)) {
    return `code ${String(body.code)}`;
  }
  if (typeof body.info !== 'string') return 'info is not a string';
  return undefined;
}

/** A response as light-my-request or fetch gives it. */
export interface Answer {
  statusCode: number;
  headers: Record<string, unknown>;
  body: string;
}

/**
 * Expects an answer that keeps the contract, and returns its body.
 *
 * @throws the assertion error naming the problem
 */
export function expectApiAnswer(answer: Answer): ApiBody {
  const contentType = answer.headers['content-type'];
  expect(
    contractProblem(
      answer.statusCode,
      typeof contentType === 'string' ? contentType : undefined,
      answer.body,
    ),
    answer.body,
  ).toBeUndefined();
  return JSON.parse(answer.body) as ApiBody;
}
