/**
 * Reading the address (R2.3 to R2.7 in docs/requirements.md): `name`,
 * `email` and `url` prefill
 * the form, the e-mail and URL only when valid; `utm_source` and
 * `utm_campaign` are read for consent and the payload.
 */
import type { SignUpValues } from '../machines/signUpMachine';
import { checkSiteUrl, isValidEmail, keptCampaign } from '../common/validation';

export interface AddressParameters {
  values: Partial<Pick<SignUpValues, 'name' | 'email' | 'url'>>;
  utmSource: string | undefined;
  utmCampaign: string | undefined;
}

/**
 * @param search `location.search`, e.g. `?name=Ada&utm_source=google`
 * @returns the prefill (e-mail trimmed; URL as given, trimmed) and the two
 *   UTM values (undefined when absent or blank; the campaign as the campaign
 *   rule, {@link keptCampaign}, keeps it, else undefined)
 */
export function readAddressParameters(search: string): AddressParameters {
  const query = new URLSearchParams(search);
  const text = (key: string) => {
    const value = query.get(key)?.trim();
    return value ? value : undefined;
  };
  const values: AddressParameters['values'] = {};
  const name = query.get('name');
  if (name?.trim()) values.name = name;
  const email = text('email');
  if (email !== undefined && isValidEmail(email)) values.email = email;
  const url = text('url');
  // An internationalised host waits for the submit's check (D58).
  const urlCheck = url === undefined ? undefined : checkSiteUrl(url);
  if (urlCheck && (urlCheck.ok || urlCheck.problem === 'unchecked')) {
    values.url = url;
  }
  return {
    values,
    utmSource: text('utm_source'),
    utmCampaign: keptCampaign(query.get('utm_campaign')),
  };
}
