/**
 * The campaign rule (ADR-0009, ADR-0010): what the page keeps in
 * `{product}_CAMPAIGN` and sends as `utm_campaign`, and what the sign-up API
 * stores. It imports nothing: the page's first load needs it (the campaign
 * cookie is written on arrival) without the form's rules (ADR-0071), and a
 * module the page shares with the submit chunk would cost the first load
 * more.
 */

/**
 * The most characters (code points, as PostgreSQL's `char_length` counts
 * them; common/fieldLimits.ts) a stored campaign may have (ADR-0010, ADR-0044):
 * far beyond any real one, and a short column.
 */
export const CAMPAIGN_MAX_LENGTH = 200;

// Not printable: controls, format (invisible) characters, line and paragraph
// separators, lone surrogates, private-use and unassigned code points.
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Co}\p{Cn}]/u;

/**
 * The campaign rule (docs/url-and-email-rules.md, "Campaign"), the one the
 * page applies before it writes `{product}_CAMPAIGN` and before it sends
 * `utm_campaign`, and the local API applies to what it receives: the value
 * trimmed is kept when it has 1–{@link CAMPAIGN_MAX_LENGTH} printable
 * characters; anything else is ignored, never refused, so a campaign cannot
 * block a sign-up.
 *
 * @param raw whatever arrived: the address's or the cookie's value, or a
 *   body field (a string, absent, or something no form sends)
 * @returns the campaign to keep, or undefined to ignore it
 */
export function keptCampaign(raw: unknown): string | undefined {
  if (typeof raw !== 'string') return undefined;
  const value = raw.trim();
  return value !== '' &&
    [...value].length <= CAMPAIGN_MAX_LENGTH &&
    !UNPRINTABLE.test(value)
    ? value
    : undefined;
}
