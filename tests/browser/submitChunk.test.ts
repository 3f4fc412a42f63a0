/**
 * The submit chunk (ADR-0071), in Chromium against the
 * built page: the form's rules and the API client are not part of the
 * page's first load; the first edit of a field fetches them, and the
 * sign-up goes on with them; a submit that finds them missing waits for
 * them; when they cannot be fetched, the general area says so, every value
 * stays, nothing is sent, and the next submit fetches them again.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { useChromiumAndServer } from './support/browserSuite';
import {
  fillSignUpForm,
  chunkFetches,
  openSignUpPage,
  submitButton,
  typedValues,
  validEntry,
} from '../../harness/page/signUpPage';

const suite = useChromiumAndServer();

/** The chunk, named after its entry. */
const SUBMIT_CHUNK = /\/submitChunk\.[0-9a-f]+\.js$/;

/** The files the page has loaded so far (Resource Timing). */
function firstLoad(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    performance.getEntriesByType('resource').map((entry) => entry.name),
  );
}

describe('the submit chunk (ADR-0071)', () => {
  it('is not in the first load; the first edit fetches it, and the sign-up uses it', async () => {
    const { context, page, signUpRequests, pageErrors } = await openSignUpPage(
      suite.browser,
      suite.server.origin,
    );
    const chunks = chunkFetches(page, SUBMIT_CHUNK);
    await expect(firstLoad(page)).resolves.not.toContainEqual(
      expect.stringMatching(SUBMIT_CHUNK),
    );
    await page.locator('input[name=name]').fill('Ada');
    await expect.poll(() => chunks.length).toBe(1);
    await fillSignUpForm(page, validEntry());
    await submitButton(page).click();
    await page.waitForURL(`${suite.server.origin}/`);
    expect(signUpRequests).toHaveLength(1);
    // Once, for the prefetch and the submit.
    expect(chunks).toHaveLength(1);
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('offline: the general area says so, every value stays, nothing is sent; the next submit fetches it again', async () => {
    const { context, page, signUpRequests } = await openSignUpPage(
      suite.browser,
      suite.server.origin,
    );
    await page.route(SUBMIT_CHUNK, (route) =>
      route.abort('internetdisconnected'),
    );
    const entry = validEntry();
    await fillSignUpForm(page, entry);
    await submitButton(page).click();
    const general = page.getByTestId('error-general');
    await general.waitFor();
    await expect(general.textContent()).resolves.toMatch(/try again/);
    expect(signUpRequests).toHaveLength(0);
    await expect(typedValues(page)).resolves.toEqual([
      entry.name,
      entry.email,
      entry.url,
    ]);
    await expect(
      submitButton(page).getAttribute('aria-disabled'),
    ).resolves.toBeNull();

    // Back online: the next submit fetches the chunk and signs up with the
    // captcha the visitor solved, which no request has spent.
    await page.unroute(SUBMIT_CHUNK);
    await submitButton(page).click();
    await page.waitForURL(`${suite.server.origin}/`);
    expect(signUpRequests).toHaveLength(1);
    await context.close();
  });
});
