/**
 * The UTS #46 host rule as a chunk of its own (ADR-0058, ADR-0059),
 * in Chromium against the built page: an ASCII-only
 * sign-up never fetches it; an internationalised host fetches it as soon as
 * it is typed and signs up with it; when the chunk cannot be fetched the
 * page says the address could not be checked, keeps every value, sends
 * nothing, and the next submit tries again.
 */
import { describe, expect, it } from 'vitest';
import { messages } from '../../common/validation';
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
const HOST_RULE_CHUNK = /\/hostRuleChunk\.[0-9a-f]+\.js$/;

describe('the host rule chunk (ADR-0058, ADR-0059)', () => {
  it('is not fetched for an ASCII-only sign-up', async () => {
    const { context, page, signUpRequests, pageErrors } = await openSignUpPage(
      suite.browser,
      suite.server.origin,
    );
    const chunks = chunkFetches(page, HOST_RULE_CHUNK);
    await fillSignUpForm(
      page,
      validEntry({ url: 'https://shop.example.com/health' }),
    );
    await submitButton(page).click();
    await page.waitForURL(`${suite.server.origin}/`);
    expect(signUpRequests).toHaveLength(1);
    expect(chunks).toEqual([]);
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('is fetched once an internationalised host is typed, and the sign-up sends its URL as typed', async () => {
    const { context, page, signUpRequests, pageErrors } = await openSignUpPage(
      suite.browser,
      suite.server.origin,
    );
    const chunks = chunkFetches(page, HOST_RULE_CHUNK);
    await page.locator('input[name=url]').fill('bücher.de/katalog');
    // Fetched on typing, before any submit.
    await expect.poll(() => chunks.length).toBe(1);
    await fillSignUpForm(page, validEntry({ url: 'bücher.de/katalog' }));
    await submitButton(page).click();
    await page.waitForURL(`${suite.server.origin}/`);
    expect(signUpRequests).toHaveLength(1);
    expect(
      new URLSearchParams(signUpRequests[0]?.postData() ?? '').get('url'),
    ).toBe('https://bücher.de/katalog');
    expect(chunks).toHaveLength(1);
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('offline: says the address could not be checked, keeps every value, sends nothing; the next submit retries', async () => {
    const { context, page, signUpRequests } = await openSignUpPage(
      suite.browser,
      suite.server.origin,
    );
    await page.route(HOST_RULE_CHUNK, (route) =>
      route.abort('internetdisconnected'),
    );
    const entry = validEntry({ url: 'пример.рф' });
    await fillSignUpForm(page, entry);
    await submitButton(page).click();
    await expect
      .poll(() => page.locator('#url-error').textContent())
      .toContain(messages.urlUnchecked);
    expect(signUpRequests).toHaveLength(0);
    await expect(typedValues(page)).resolves.toEqual([
      entry.name,
      entry.email,
      entry.url,
    ]);
    await expect(submitButton(page).isEnabled()).resolves.toBe(true);

    // Back online: the next submit fetches the chunk and signs up.
    await page.unroute(HOST_RULE_CHUNK);
    await submitButton(page).click();
    await page.waitForURL(`${suite.server.origin}/`);
    expect(signUpRequests).toHaveLength(1);
    await context.close();
  });
});
