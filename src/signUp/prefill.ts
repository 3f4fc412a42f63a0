/**
 * Reading the address (R2.3 to R2.7 in docs/requirements.md): `name`,
 * `email` and `url` prefill the form, the e-mail and URL only when valid;
 * `utm_source` and `utm_campaign` are read for consent and the payload.
 * The e-mail and the site URL are judged by the form's rules, which the
 * page's first load does not carry: the page fetches them when the address
 * holds either (ADR-0071), and prefills what they accept.
 */
import type { SignUpValues } from '../../machines/signUpMachine';
import { keptCampaign } from '../../common/campaign';

/** The e-mail and site URL of the address, trimmed, before any rule. */
export type UncheckedPrefill = Partial<Pick<SignUpValues, 'email' | 'url'>>;

export interface AddressParameters {
  /** The name, as given. */
  values: Partial<Pick<SignUpValues, 'name'>>;
  /**
   * The e-mail and the site URL, trimmed, for the rules to judge
   * (`prefillOf` of common/validation.ts); a field absent or blank is left
   * out.
   */
  unchecked: UncheckedPrefill;
  utmSource: string | undefined;
  utmCampaign: string | undefined;
}

/**
 * @param search `location.search`, e.g. `?name=Ada&utm_source=google`
 * @returns the name's prefill, the e-mail and site URL to judge, and the
 *   two UTM values
 *   (undefined when absent or blank; the campaign as the campaign rule,
 *   {@link keptCampaign}, keeps it, else undefined)
 */
export function readAddressParameters(search: string): AddressParameters {
  const query = new URLSearchParams(search);
  const text = (key: string) => {
    const value = query.get(key)?.trim();
    return value ? value : undefined;
  };
  const name = query.get('name');
  const email = text('email');
  const url = text('url');
  return {
    values: name?.trim() ? { name } : {},
    unchecked: {
      ...(email !== undefined && { email }),
      ...(url !== undefined && { url }),
    },
    utmSource: text('utm_source'),
    utmCampaign: keptCampaign(query.get('utm_campaign')),
  };
}
