/**
 * Issue 27 in Chromium, Firefox and WebKit (tests/browser/support/engines/:
 * one definition run per engine, against the built page and the local
 * service): a site whose name needs a zero-width joiner or non-joiner where
 * IDNA allows one (RFC 5892 Appendix A) signs up. The Sinhala `ශ්‍රී.com`
 * (a joiner after the virama) and the Persian `نامه‌ای.com` (a non-joiner
 * between letters) are typed as a visitor types them; the page sends each
 * with `https://` and otherwise as typed (ADR-0014), and `/`, which shows the
 * account the service stored, shows that URL.
 *
 * The expectations are the words, not the page's output.
 */
import { describe, expect, it } from 'vitest';
import type { Engine } from '../../harness/engines';
import { useEngine } from './support/engines/launch';
import { enginesUnderTest } from './support/engines/underTest';
import { openSignUpPage, using } from './support/engines/visit';
import { typeInto } from '../../harness/model/visitor';

/** How long a page may take to show what is awaited: the machine is shared. */
const POLL = { timeout: 10_000 };

const SITES = [
  ['Sinhala, a joiner after the virama', 'ශ්\u200dරී.com'],
  ['Persian, a non-joiner between letters', 'نامه\u200cای.com'],
] as const;

/** An address no earlier run has signed up with (ADR-0043: one account each). */
function freshAddress(engine: Engine, site: number): string {
  return `ada.${engine}.${site}.${Date.now().toString(36)}@example.com`;
}

/** The text of a test selector, whitespace collapsed; null when absent. */
const hookText = (hook: string) => {
  const element = document.querySelector(`[data-testid="${hook}"]`);
  return element
    ? (element.textContent ?? '').replace(/\s+/g, ' ').trim()
    : null;
};

describe.each(enginesUnderTest())('%s', (engine) => {
  const suite = useEngine(engine);

  it.each(SITES.map(([what, site], index) => [what, site, index] as const))(
    '%s (%s) signs up, and the service stores the URL as typed',
    async (_what, site, index) => {
      const origin = suite.server.origin;
      const page = await openSignUpPage(suite, origin);
      await using(page, async () => {
        await typeInto(page, 'name', 'Ada Lovelace');
        await typeInto(page, 'email', freshAddress(engine, index));
        await typeInto(page, 'url', site);
        await expect(
          page.evaluate(
            () =>
              document.querySelector<HTMLInputElement>(
                '#signup-form input[name="url"]',
              )?.value,
          ),
          'the field holds the name with its joiner',
        ).resolves.toBe(site);
        await page.click('#signup-form input[name="tos"]');
        await page.click('[data-testid="fake-captcha"]');
        await page.click('#signup-form button[type="submit"]');

        await expect.poll(() => page.url(), POLL).toBe(`${origin}/`);
        expect(suite.network.signUps).toHaveLength(1);
        expect(
          new URLSearchParams(suite.network.signUps[0]?.body).get('url'),
        ).toBe(`https://${site}`);
        await expect
          .poll(() => page.evaluate(hookText, 'site-url'), POLL)
          .toBe(`https://${site}`);
      });
    },
  );
});
