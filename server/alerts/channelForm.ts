/**
 * The channel form's rules (issue 60): what `POST /channels` accepts.
 *
 * - `kind`: one of `email`, `webhook`, `slack`, `discord`, `ntfy`.
 * - `target`: an e-mail address by the sign-up's rule
 *   (common/emailAddress.ts, at most 254 characters), not the owner's own
 *   (it gets every alert already); or a URL read by the WHATWG URL parser
 *   (path and query kept), `http:` or `https:`, at most 2,048 characters,
 *   without a user name or password: a Slack incoming webhook on
 *   `https://hooks.slack.com/` (api.slack.com/messaging/webhooks), a
 *   Discord webhook under `https://discord.com/api/webhooks/` or
 *   `https://discordapp.com/api/webhooks/` (discord.com/developers/docs/
 *   resources/webhook), any other for a webhook or an ntfy topic; and
 *   then the monitor's address rule (`app.monitor.judgeUrl`): a name that
 *   resolves into a private network is refused here, in plain words.
 * - `sites`: `all`, or `chosen` with repeated `site` fields, the ids of
 *   the account's own sites (any other is ignored).
 *
 * Messages say what to do, in the GOV.UK Design System's manner.
 */
import { isValidEmail } from '../../common/emailAddress';
import { FIELD_LIMITS, fitsFieldLimit } from '../../common/fieldLimits';
import { CHANNEL_KINDS, type ChannelKind } from '../outbox/index';
import type { NewChannel, SitesChoice } from './channels';

/** The longest channel URL (the table's check, and the outbox's). */
export const CHANNEL_URL_MAX = 2_048;

/** The form's fields, as typed (kept when it is refused). */
export interface ChannelFormValues {
  kind: string;
  target: string;
  /** `all` or `chosen`; anything else reads as `all`. */
  sites: string;
  /** The sites ticked, as sent. */
  site: readonly string[];
}

/** A refused field and what to do about it. */
export interface ChannelFormError {
  field: 'kind' | 'target' | 'sites';
  message: string;
}

/** What a form body holds, fields as text, lists of text, or absent. */
export type ChannelFormBody = Readonly<Record<string, unknown>>;

const text = (value: unknown): string =>
  typeof value === 'string' ? value : '';

/**
 * The form's values as typed, from a parsed form body: a repeated or
 * missing `kind`, `target` or `sites` reads as empty; `site` may repeat.
 */
export function channelFormValues(
  body: ChannelFormBody | undefined,
): ChannelFormValues {
  const site = body?.site;
  return {
    kind: text(body?.kind),
    target: text(body?.target),
    sites: text(body?.sites),
    site: Array.isArray(site)
      ? site.filter((value): value is string => typeof value === 'string')
      : typeof site === 'string'
        ? [site]
        : [],
  };
}

/** Whether a value is a channel kind. */
function isKind(value: string): value is ChannelKind {
  return (CHANNEL_KINDS as readonly string[]).includes(value);
}

/** What each URL kind's field says when it is empty. */
const ENTER_URL: Readonly<Record<Exclude<ChannelKind, 'email'>, string>> = {
  webhook: 'Enter the URL of your webhook receiver',
  slack: 'Enter your Slack incoming webhook’s URL',
  discord: 'Enter your Discord webhook’s URL',
  ntfy: 'Enter the URL of your ntfy topic, like https://ntfy.sh/your-topic',
};

/**
 * Judges a URL for a kind by itself (no network).
 *
 * @returns the URL as the WHATWG parser writes it, or the message
 */
function readUrl(
  kind: Exclude<ChannelKind, 'email'>,
  typed: string,
): { ok: true; url: string } | { ok: false; message: string } {
  const given = typed.trim();
  if (given === '') return { ok: false, message: ENTER_URL[kind] };
  const url = URL.parse(given);
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    return {
      ok: false,
      message: 'Enter a URL that starts with https:// or http://',
    };
  }
  if (url.username !== '' || url.password !== '') {
    return {
      ok: false,
      message: 'Enter the URL without a user name or password in it',
    };
  }
  if (url.href.length > CHANNEL_URL_MAX) {
    return {
      ok: false,
      message: `Enter a URL of ${CHANNEL_URL_MAX.toLocaleString('en-GB')} characters or fewer`,
    };
  }
  const path = url.pathname;
  if (
    kind === 'slack' &&
    (url.protocol !== 'https:' ||
      url.host !== 'hooks.slack.com' ||
      path === '/' ||
      path === '')
  ) {
    return {
      ok: false,
      message:
        'Enter a Slack incoming webhook URL: it starts with https://hooks.slack.com/',
    };
  }
  if (
    kind === 'discord' &&
    (url.protocol !== 'https:' ||
      (url.host !== 'discord.com' && url.host !== 'discordapp.com') ||
      !path.startsWith('/api/webhooks/') ||
      path === '/api/webhooks/')
  ) {
    return {
      ok: false,
      message:
        'Enter a Discord webhook URL: it starts with https://discord.com/api/webhooks/',
    };
  }
  return { ok: true, url: url.href };
}

/** What the rules need of the account and the service. */
export interface ChannelFormContext {
  /** The owner's own address, which gets every alert already. */
  ownerEmail: string;
  /** The ids of the account's own sites. */
  siteIds: readonly string[];
  /**
   * The monitor's address rule for a URL about to be saved
   * (`app.monitor.judgeUrl`): a refusal, or undefined when it may be saved.
   */
  judgeUrl: (url: string) => Promise<string | undefined>;
}

/**
 * Judges the form: each field by itself, then a URL by the monitor's
 * address rule.
 *
 * @param values the fields as typed
 * @returns the channel to add, or every refused field with its message
 *   (in the form's order: kind, target, sites)
 */
export async function readChannelForm(
  values: ChannelFormValues,
  context: ChannelFormContext,
): Promise<
  { ok: true; channel: NewChannel } | { ok: false; errors: ChannelFormError[] }
> {
  const errors: ChannelFormError[] = [];
  const kind = isKind(values.kind) ? values.kind : undefined;
  let target: string | undefined;
  if (!kind) {
    errors.push({ field: 'kind', message: 'Choose where the alerts go' });
  } else if (kind === 'email') {
    const email = values.target.trim();
    if (email === '') {
      errors.push({
        field: 'target',
        message: 'Enter the email address the alerts go to',
      });
    } else if (!isValidEmail(email)) {
      errors.push({
        field: 'target',
        message:
          'Enter an email address in the correct format, like name@example.com',
      });
    } else if (!fitsFieldLimit('email', email)) {
      errors.push({
        field: 'target',
        message: `Enter an email address of ${FIELD_LIMITS.email} characters or fewer`,
      });
    } else if (
      email.toLowerCase() === context.ownerEmail.trim().toLowerCase()
    ) {
      errors.push({
        field: 'target',
        message: 'Enter another address: yours gets every alert already',
      });
    } else {
      target = email;
    }
  } else {
    const read = readUrl(kind, values.target);
    if (!read.ok) {
      errors.push({ field: 'target', message: read.message });
    } else if ((await context.judgeUrl(read.url)) !== undefined) {
      errors.push({
        field: 'target',
        message: `Enter a URL on the public internet: ${new URL(read.url).hostname} leads to an address inside a private network, where we send no alerts`,
      });
    } else {
      target = read.url;
    }
  }

  const sites = readSitesChoice(values, context.siteIds);
  if (!sites.ok) errors.push(sites.error);

  if (errors.length > 0 || !kind || target === undefined || !sites.ok) {
    return { ok: false, errors };
  }
  return {
    ok: true,
    channel: {
      kind,
      target,
      allSites: sites.choice.allSites,
      siteIds: sites.choice.siteIds,
    },
  };
}

/**
 * Judges the sites a channel alerts for (the add form's, and the form on
 * a channel's page that changes them): every site, or those ticked among
 * the account's own (any other is ignored), at least one.
 *
 * @param ownSiteIds the ids of the account's own sites
 */
export function readSitesChoice(
  values: Pick<ChannelFormValues, 'sites' | 'site'>,
  ownSiteIds: readonly string[],
): { ok: true; choice: SitesChoice } | { ok: false; error: ChannelFormError } {
  const own = new Set(ownSiteIds);
  const allSites = values.sites !== 'chosen';
  const siteIds = allSites
    ? []
    : [...new Set(values.site)].filter((id) => own.has(id));
  if (!allSites && siteIds.length === 0) {
    return {
      ok: false,
      error: {
        field: 'sites',
        message:
          'Choose the sites this channel alerts for, or choose every site',
      },
    };
  }
  return { ok: true, choice: { allSites, siteIds } };
}
