/**
 * The site form's rules (issue 59; ADR-0127): what `POST /sites` and
 * `POST /sites/:id` accept. The URL obeys the sign-up's rule (one
 * verdict: common/validation.ts's `checkSiteUrl` with the UTS #46 host
 * rule, and the sign-up's length), and then the monitor's address rule: a
 * name that resolves to an address the monitor would refuse is refused
 * here, in plain words, rather than accepted and failed at its first
 * check. Messages say what to do, in the GOV.UK Design System's manner.
 */
import { checkHostName } from '../../common/domainName';
import { FIELD_LIMITS, fitsFieldLimit } from '../../common/fieldLimits';
import { checkSiteUrl, siteUrlMessage } from '../../common/validation';
import type { AddressRule } from './check/addressRule';
import type { Resolver } from './check/siteCheck';
import { cleanRemoteText } from './check/remoteText';
import { INTERVAL_FACTORS, SITE_NAME_MAX, type SiteSettings } from './sites';

/** The form's fields, as typed (kept when it is refused). */
export interface SiteFormValues {
  url: string;
  name: string;
  /** The interval's option value: seconds, as text. */
  interval: string;
}

/** A refused field and what to do about it. */
export interface SiteFormError {
  field: keyof SiteFormValues;
  message: string;
}

/** What a form body holds, fields as text or absent. */
export type SiteFormBody = Readonly<Record<string, unknown>>;

const text = (value: unknown): string =>
  typeof value === 'string' ? value : '';

/**
 * The form's values as typed, from a parsed form body (a repeated or
 * missing field reads as empty).
 */
export function siteFormValues(body: SiteFormBody | undefined): SiteFormValues {
  return {
    url: text(body?.url),
    name: text(body?.name),
    interval: text(body?.interval),
  };
}

/**
 * Judges the form's fields by themselves (no network).
 *
 * @param values the fields as typed
 * @param baseSeconds `MONITOR_INTERVAL_SECONDS`: the options are its
 *   multiples by {@link INTERVAL_FACTORS}
 * @returns the site's settings, or every refused field with its message
 *   (in the form's order: URL, name, interval)
 */
export function readSiteForm(
  values: SiteFormValues,
  baseSeconds: number,
): { ok: true; site: SiteSettings } | { ok: false; errors: SiteFormError[] } {
  const errors: SiteFormError[] = [];
  const url = checkSiteUrl(values.url, checkHostName);
  let siteUrl = '';
  if (!url.ok) {
    errors.push({ field: 'url', message: siteUrlMessage(url.problem) });
  } else if (!fitsFieldLimit('url', url.url)) {
    errors.push({
      field: 'url',
      message: `Enter a website address of ${FIELD_LIMITS.url.toLocaleString('en-GB')} characters or fewer`,
    });
  } else {
    siteUrl = url.url;
  }
  const name = values.name.trim();
  if (name !== cleanRemoteText(name, Infinity)) {
    errors.push({
      field: 'name',
      message: 'Enter a name as plain text, without control characters',
    });
  } else if ([...name].length > SITE_NAME_MAX) {
    errors.push({
      field: 'name',
      message: `Enter a name of ${SITE_NAME_MAX} characters or fewer`,
    });
  }
  const factor = INTERVAL_FACTORS.find(
    (candidate) => String(candidate * baseSeconds) === values.interval,
  );
  if (factor === undefined) {
    errors.push({ field: 'interval', message: 'Choose how often to check it' });
  }
  if (errors.length > 0 || factor === undefined) return { ok: false, errors };
  return {
    ok: true,
    site: { siteUrl, name: name === '' ? null : name, intervalFactor: factor },
  };
}

/**
 * The monitor's address rule applied when a site is saved: the URL's host
 * is resolved as a check resolves it, and an address the rule refuses
 * refuses the site. A name that does not resolve (yet), or whose DNS does
 * not answer, is let through: its checks will say so, and a site being
 * moved may not resolve today.
 *
 * @param siteUrl a URL the sign-up's rule accepted
 * @param resolve the monitor's resolver (`/etc/hosts`, then DNS)
 * @param isAllowed the monitor's address rule
 * @param timeoutMs how long the resolver may take (default 5,000)
 * @returns the refusal's message, or undefined when the site may be saved
 */
export async function judgeSiteAddress(
  siteUrl: string,
  resolve: Resolver,
  isAllowed: AddressRule,
  timeoutMs = 5_000,
): Promise<string | undefined> {
  const host = new URL(siteUrl).hostname;
  let answers: readonly { address: string }[];
  try {
    answers = await Promise.race([
      resolve(host),
      new Promise<never>((_resolve, reject) => {
        setTimeout(() => reject(new Error('timeout')), timeoutMs).unref();
      }),
    ]);
  } catch {
    return undefined;
  }
  const refused = answers.find(({ address }) => !isAllowed(address));
  if (!refused) return undefined;
  return `Enter the address of a site on the public internet: ${host} leads to ${refused.address}, an address inside a private network, which we do not check`;
}
