/**
 * The alert channels as the pages show them (issue 60): the section of `/`
 * that says where the alerts go, the form that adds a channel, a
 * channel's page (its signing secret once, "Send a test alert" and its
 * answer, "Remove"), and the pages of an added address's confirmation
 * link and of its one-click unsubscribe link. Server-rendered, without
 * script, in the sites' pages' manner (server/monitor/sitePages.ts) and
 * with their stylesheet's classes: every action is a form that posts and
 * is answered with a redirect; a refused form comes back with GOV.UK's
 * error summary, each field's message and what was typed.
 *
 * A channel's address or URL is a secret once saved: the pages show it
 * masked ({@link maskedTarget}), never whole. Pure: HTML from values,
 * every value escaped.
 */
import {
  cardPage,
  errorSummary,
  fieldParts,
  formField,
  formTitle,
} from '../http/forms';
import { escapeHtml, layout } from '../http/html';
import type { ChannelKind } from '../outbox/index';
import type { ChannelFormError, ChannelFormValues } from './channelForm';
import { CONFIRM_LINK_HOURS } from './channelNotices';
import {
  CHANNELS_PATH,
  CONFIRM_CHANNEL_PATH,
  NEW_CHANNEL_PATH,
  channelPath,
  channelSitesPath,
  removeChannelPath,
  resendChannelPath,
  testChannelPath,
} from './channelPaths';
import {
  CHANNELS_PER_ACCOUNT,
  CONFIRM_MAILS_PER_DAY,
  EMAIL_CHANNELS_PER_ACCOUNT,
  type ChannelSummary,
  type ChannelView,
} from './channels';

/** A channel kind's name, as the pages and `channel-kind` write it. */
export const KIND_NAMES: Readonly<Record<ChannelKind, string>> = {
  email: 'Email',
  webhook: 'Webhook',
  slack: 'Slack',
  discord: 'Discord',
  ntfy: 'ntfy',
};

/** A site as the channel pages name it. */
export interface ChannelSite {
  id: string;
  name: string;
  url: string;
}

/**
 * An address as the pages show it (ADR-0112's manner): the first character of
 * its local part, three dots, and its domain (`a•••@example.com`).
 *
 * @param email an address with one `@` or more (the last one splits)
 */
export function maskedAddress(email: string): string {
  const at = email.lastIndexOf('@');
  const local = at < 0 ? email : email.slice(0, at);
  const domain = at < 0 ? '' : email.slice(at);
  return `${Array.from(local)[0] ?? ''}•••${domain}`;
}

/**
 * A channel's target as the pages show it once saved (issue 60: "Channel
 * URLs are secrets: masked on `/` after they are saved"): an address as
 * {@link maskedAddress}; a URL as its scheme and host, then `/…` (its
 * path and query, where a webhook's token lives, never shown).
 */
export function maskedTarget(kind: ChannelKind, target: string): string {
  if (kind === 'email') return maskedAddress(target);
  const url = URL.parse(target);
  return url ? `${url.protocol}//${url.host}/…` : '…';
}

/** A moment as the pages write it: `14:03 UTC on 5 December 2026`. */
function momentWords(date: Date): string {
  const time = date.toLocaleTimeString('en-GB', {
    hour: '2-digit',
    minute: '2-digit',
    timeZone: 'UTC',
  });
  const day = date.toLocaleDateString('en-GB', {
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    timeZone: 'UTC',
  });
  return `${time} UTC on ${day}`;
}

/** A moment as a `<time>` element, its words inside. */
function timeOf(date: Date): string {
  return `<time datetime="${date.toISOString()}">${escapeHtml(momentWords(date))}</time>`;
}

/**
 * A channel's state in words (HTML, escaped): off (it answered 410 Gone,
 * or it unsubscribed), waiting for its address's confirmation, failing
 * since when with its last error, or working.
 */
export function channelState(channel: ChannelSummary): string {
  if (channel.disabledAt) {
    return channel.disabledReason === 'unsubscribed'
      ? 'Off: unsubscribed'
      : 'Off: it answered that it is gone (410)';
  }
  if (!channel.confirmed) return 'Waiting for confirmation';
  if (channel.failingSince) {
    return `Failing since ${timeOf(channel.failingSince)}: ${escapeHtml(channel.lastError ?? 'its deliveries do not arrive')}`;
  }
  return 'Working';
}

/** Which sites a channel alerts for, in words. */
function sitesWords(allSites: boolean, count: number): string {
  if (allSites) return 'Alerts for every site';
  return count === 1 ? 'Alerts for 1 site' : `Alerts for ${count} sites`;
}

/** What the section of `/` needs. */
export interface ChannelsSectionView {
  /** The owner's address once proven; null while it is not. */
  owner: string | null;
  channels: readonly (ChannelSummary & { siteCount: number })[];
}

/**
 * Where the alerts go, on `/`: the owner's own address (every alert),
 * then each channel with its kind, its target masked, its state in words
 * and a link to its page; "Add a channel" below them.
 *
 * @returns HTML with `alerts-owner`, `channel`, `channel-link`,
 *   `channel-kind`, `channel-target`, `channel-state`, `add-channel`
 *   (docs/contract.md)
 */
export function channelsSection(view: ChannelsSectionView): string {
  const owner = view.owner
    ? `Your own address, <strong class="account__email">${escapeHtml(view.owner)}</strong>, gets every alert.`
    : 'Your own address gets every alert once you have confirmed it.';
  const items = view.channels.map(
    (channel) => `<li class="sites__item" data-testid="channel">
<h3 class="sites__name"><a href="${channelPath(channel.id)}" data-testid="channel-link" aria-describedby="channel-${channel.id}-target"><span data-testid="channel-kind">${KIND_NAMES[channel.kind]}</span></a></h3>
<p class="sites__url" id="channel-${channel.id}-target" data-testid="channel-target">${escapeHtml(maskedTarget(channel.kind, channel.target))}</p>
<p class="sites__facts" data-testid="channel-state">${channelState(channel)}</p>
<p class="sites__facts">${escapeHtml(sitesWords(channel.allSites, channel.siteCount))}.</p>
</li>`,
  );
  const list =
    items.length === 0
      ? `<p>Add an email address, a webhook, Slack, Discord or ntfy, and your alerts go there too.</p>\n`
      : `<ul class="sites__list">\n${items.join('\n')}\n</ul>\n`;
  const room =
    view.channels.length >= CHANNELS_PER_ACCOUNT
      ? `<p class="monitor__meaning">You have ${CHANNELS_PER_ACCOUNT} channels, the most an account can have. Remove one to add another.</p>\n`
      : '';
  return `<section class="monitor sites" aria-labelledby="channels-title">
<h2 id="channels-title" class="monitor__title">Where your alerts go</h2>
<p data-testid="alerts-owner">${owner}</p>
${list}${room}<p class="sites__add"><a class="button button--secondary" href="${NEW_CHANNEL_PATH}" data-testid="add-channel">Add a channel</a></p>
</section>
`;
}

/** The form's fields' labels. */
const FIELD_LABELS = {
  kind: 'Where the alerts go',
  target: 'Address or URL',
  sites: 'Which sites it alerts for',
} as const;

/** What the channel form page needs. */
export interface ChannelFormPageContext {
  values: ChannelFormValues;
  errors: readonly ChannelFormError[];
  /** The account's sites, to narrow the channel to some. */
  sites: readonly ChannelSite[];
}

/**
 * The choice of the sites a channel alerts for (the add form's, and the
 * form on its page): every site, or only those ticked, with what was
 * chosen; with no site yet, every site, said in words.
 */
function sitesChoices(
  values: Pick<ChannelFormValues, 'sites' | 'site'>,
  sites: readonly ChannelSite[],
  errors: readonly ChannelFormError[],
): string {
  if (sites.length === 0) {
    return `<input type="hidden" name="sites" value="all">
<p class="field__hint">It alerts for every site you add.</p>`;
  }
  const chosen = values.sites === 'chosen';
  const field = fieldParts('sites', errors);
  const ticked = new Set(values.site);
  return `<fieldset class="field${field.error ? ' field--error' : ''}" aria-describedby="${field.describedBy}">
<legend class="field__label">${FIELD_LABELS.sites}</legend>
<p id="sites-hint" class="field__hint">Every site includes those you add later.</p>
${field.message}<div><input type="radio" id="sites" name="sites" value="all"${chosen ? '' : ' checked'}> <label for="sites">Every site</label></div>
<div><input type="radio" id="sites-chosen" name="sites" value="chosen"${chosen ? ' checked' : ''}> <label for="sites-chosen">Only these sites:</label></div>
${sites
  .map(
    (site) =>
      `<div><input type="checkbox" id="site-${escapeHtml(site.id)}" name="site" value="${escapeHtml(site.id)}"${ticked.has(site.id) ? ' checked' : ''}> <label for="site-${escapeHtml(site.id)}">${escapeHtml(site.name)}</label></div>`,
  )
  .join('\n')}
</fieldset>`;
}

/**
 * The form that adds a channel: its kind, its address or URL, and the
 * sites it alerts for (every site, or those ticked). A refused form shows
 * GOV.UK's error summary first (focused on load, each item a link to its
 * field), each field's own message, and what was typed.
 *
 * @returns the whole document, with `channel-form` and, when refused,
 *   `error-summary` (docs/contract.md)
 */
export function channelFormPage(
  productName: string,
  context: ChannelFormPageContext,
): string {
  const { values, errors, sites } = context;
  const title = 'Add a channel';
  const options = (Object.keys(KIND_NAMES) as ChannelKind[])
    .map(
      (value) =>
        `<option value="${value}"${values.kind === value ? ' selected' : ''}>${value === 'email' ? 'Email address' : KIND_NAMES[value]}</option>`,
    )
    .join('');
  return layout(
    productName,
    formTitle(title, errors),
    `<section class="card" aria-labelledby="channel-form-title">
${errorSummary(errors)}<h1 id="channel-form-title" class="card__title">${title}</h1>
<p>Your alerts go to your own address and to each channel you add. Up to ${CHANNELS_PER_ACCOUNT} channels, of which ${EMAIL_CHANNELS_PER_ACCOUNT} email addresses.</p>
<form method="post" action="${CHANNELS_PATH}" class="form" data-testid="channel-form" novalidate>
${formField(
  {
    name: 'kind',
    label: FIELD_LABELS.kind,
    hint: 'An email address gets a link to confirm first. A webhook gets a signed JSON POST (Standard Webhooks).',
    control: (aria) =>
      `<select class="field__input" id="kind" name="kind"${aria}>${options}</select>`,
  },
  errors,
)}
${formField(
  {
    name: 'target',
    label: FIELD_LABELS.target,
    hint: 'An email address, like name@example.com; a webhook’s URL; a Slack incoming webhook (https://hooks.slack.com/…); a Discord webhook (https://discord.com/api/webhooks/…); or an ntfy topic (https://ntfy.sh/your-topic).',
    control: (aria) =>
      `<input class="field__input" id="target" name="target" type="text" autocomplete="off" spellcheck="false" autocapitalize="none" value="${escapeHtml(values.target)}"${aria}>`,
  },
  errors,
)}
${sitesChoices(values, sites, errors)}
<button type="submit" class="button">Add the channel</button>
</form>
<p class="card__aside"><a href="/">Cancel</a></p>
</section>`,
  );
}

/** What a channel's page says after "Send a test alert" when none was sent. */
export type TestNote = 'unconfirmed' | 'limited';

const TEST_NOTES: Readonly<Record<TestNote, string>> = {
  unconfirmed:
    'Not sent: this address has not confirmed it wants the alerts yet. It gets nothing, not even a test, until it opens the link we mailed it.',
  limited:
    'Not sent: a test alert went to this channel seconds ago. Wait a few seconds before you send another.',
};

/** What a channel's page says after an action that led to it. */
export type ChannelNote = 'saved' | 'resent';

const CHANNEL_NOTES: Readonly<Record<ChannelNote, string>> = {
  saved: 'The sites it alerts for are saved.',
  resent: `We mailed this address a new link. It works for ${CONFIRM_LINK_HOURS} hours; the links mailed before it work no more.`,
};

/** What a channel's page says after "Send the link again" when none was sent. */
export type ResendNote = 'cooldown' | 'limited';

const RESEND_NOTES: Readonly<Record<ResendNote, string>> = {
  cooldown:
    'Not sent: a link went to this address less than a minute ago. Wait a minute before you send another.',
  limited: `Not sent: your account has sent ${CONFIRM_MAILS_PER_DAY} confirmation links in the last 24 hours, the most it can. Send it again later.`,
};

/** The form on a channel's page that changes its sites, refused. */
export interface SitesFormRefusal {
  /** What was chosen, kept. */
  values: Pick<ChannelFormValues, 'sites' | 'site'>;
  errors: readonly ChannelFormError[];
}

/** What a channel's page shows besides the channel. */
export interface ChannelPageContext {
  /** The account's sites (the channel's, when it is narrowed, by id). */
  sites: readonly ChannelSite[];
  /** The answer to "Send a test alert" when nothing was sent. */
  testNote?: TestNote | undefined;
  /** The answer to "Send the link again" when nothing was sent. */
  resendNote?: ResendNote | undefined;
  note?: ChannelNote | undefined;
  /** The sites' form refused (422); without it, the form shows the channel's sites. */
  refused?: SitesFormRefusal | undefined;
}

/**
 * The form on a channel's page that changes the sites it alerts for: the
 * add form's choice, filled with the channel's sites (or with what was
 * chosen, when refused). None while the account has no site and the
 * channel alerts for every site: there is nothing to choose.
 */
function sitesForm(
  channel: ChannelView,
  sites: readonly ChannelSite[],
  refused: SitesFormRefusal | undefined,
): string {
  if (sites.length === 0 && channel.allSites) return '';
  const values = refused?.values ?? {
    sites: channel.allSites ? 'all' : 'chosen',
    site: channel.siteIds,
  };
  return `<h2 class="monitor__title">Change its sites</h2>
<form method="post" action="${channelSitesPath(channel.id)}" class="form" data-testid="edit-channel" novalidate>
${sitesChoices(values, sites, refused?.errors ?? [])}
<button type="submit" class="button button--secondary">Save the sites</button>
</form>
`;
}

/**
 * What a channel's page says of an address waiting for its confirmation:
 * its link works, or works no more; "Send the link again", and why it
 * sent nothing.
 */
function confirmationWaits(
  channel: ChannelView,
  note: ResendNote | undefined,
): string {
  const state = channel.linkExpired
    ? `The link we mailed this address is more than ${CONFIRM_LINK_HOURS} hours old and works no more. It gets nothing until it is confirmed: send it a new link.`
    : `We mailed this address a link to confirm it wants your alerts. It gets nothing until it does; the link works for ${CONFIRM_LINK_HOURS} hours.`;
  const result = note
    ? `<p class="monitor__note" role="status" data-testid="resend-result">${escapeHtml(RESEND_NOTES[note])}</p>\n`
    : '';
  return `<p class="monitor__meaning">${state}</p>
${result}<form method="post" action="${resendChannelPath(channel.id)}" class="form" data-testid="resend-confirmation"><button type="submit" class="button button--secondary">Send the link again</button></form>
`;
}

/**
 * A channel's page: its kind, its target masked, its state, the sites it
 * alerts for and the form that changes them; a webhook's signing secret
 * on the first view only; "Send a test alert" and the last test's
 * answer; "Remove"; an address waiting for its confirmation, "Send the
 * link again". The sites' form refused, the page comes back with
 * GOV.UK's error summary first and what was chosen.
 *
 * @returns the whole document, with `channel-page`, `channel-kind`,
 *   `channel-target`, `channel-state`, `channel-sites`, `edit-channel`,
 *   `channel-note` after a change, `error-summary` when refused,
 *   `channel-secret` (once), `resend-confirmation` and `resend-result`
 *   (an address waiting), `test-channel`, `channel-test-result`,
 *   `remove-channel` (docs/contract.md)
 */
export function channelPage(
  productName: string,
  channel: ChannelView,
  context: ChannelPageContext,
): string {
  const name = KIND_NAMES[channel.kind];
  const errors = context.refused?.errors ?? [];
  const note = context.note
    ? `<p class="message message--success" role="status" data-testid="channel-note">${escapeHtml(CHANNEL_NOTES[context.note])}</p>\n`
    : '';
  const byId = new Map(context.sites.map((site) => [site.id, site]));
  const narrowed = channel.siteIds
    .map((id) => byId.get(id))
    .filter((site) => site !== undefined);
  const sites = channel.allSites
    ? 'Every site, and those you add later'
    : narrowed.length === 0
      ? 'No site: the sites it alerted for are removed'
      : `<ul>${narrowed.map((site) => `<li>${escapeHtml(site.name)}</li>`).join('')}</ul>`;
  const secret = channel.freshSecret
    ? `<div class="message message--notice" role="status">
<h2 class="message__title">Its signing secret, shown once</h2>
<p>Copy it now: we never show it again. Your receiver checks the <code>webhook-signature</code> of each request with it (Standard Webhooks). Lost it? Remove this webhook and add it again.</p>
</div>
<dl class="account">
<div class="account__row"><dt>Signing secret</dt><dd><code data-testid="channel-secret">${escapeHtml(channel.freshSecret)}</code></dd></div>
</dl>
`
    : '';
  const waiting =
    channel.kind === 'email' && !channel.confirmed && !channel.disabledAt
      ? confirmationWaits(channel, context.resendNote)
      : '';
  const result = context.testNote
    ? `<p class="monitor__note" role="status" data-testid="channel-test-result">${escapeHtml(TEST_NOTES[context.testNote])}</p>\n`
    : channel.lastTestAt
      ? `<p class="monitor__note" role="status" data-testid="channel-test-result">Test alert sent at ${timeOf(channel.lastTestAt)}. ${escapeHtml(channel.lastTestResult ?? 'Its answer is not known yet.')}</p>\n`
      : '';
  return layout(
    productName,
    formTitle(`${name} channel`, errors),
    `<section class="card monitor site" aria-labelledby="channel-title" data-testid="channel-page">
<p class="card__aside site__back"><a href="/">Your account</a></p>
${errorSummary(errors)}${note}<h1 id="channel-title" class="card__title"><span data-testid="channel-kind">${name}</span></h1>
${secret}<dl class="account">
<div class="account__row"><dt>Sends to</dt><dd data-testid="channel-target">${escapeHtml(maskedTarget(channel.kind, channel.target))}</dd></div>
<div class="account__row"><dt>State</dt><dd data-testid="channel-state">${channelState(channel)}</dd></div>
<div class="account__row"><dt>Alerts for</dt><dd data-testid="channel-sites">${sites}</dd></div>
</dl>
${waiting}${sitesForm(channel, context.sites, context.refused)}<h2 class="monitor__title">Send a test alert</h2>
<p class="monitor__meaning">A test alert goes to this channel at once, and we show what it answered.</p>
${result}<form method="post" action="${testChannelPath(channel.id)}" class="form" data-testid="test-channel"><button type="submit" class="button button--secondary">Send a test alert</button></form>
<div class="site__actions">
<form method="post" action="${removeChannelPath(channel.id)}" data-testid="remove-channel"><button type="submit" class="button button--danger">Remove this channel</button></form>
</div>
</section>`,
  );
}

/** What a page of a channel the account does not have answers (404). */
export function channelNotFoundPage(productName: string): string {
  return cardPage(productName, {
    title: 'Channel not found',
    headingId: 'missing-title',
    testId: 'channel-not-found',
    heading: 'There is no such channel',
    text: 'Your account has no alert channel at this address. It may have been removed.',
    back: { href: '/', words: 'Your account' },
  });
}

/**
 * What adding a channel answers while the owner's address is unconfirmed
 * (ADR-0120's rule for sites: nothing is sent for an unproven owner, so no
 * channel either, and no confirmation mail to a stranger's address).
 */
export function ownerUnconfirmedPage(productName: string): string {
  return cardPage(productName, {
    title: 'Confirm your address first',
    headingId: 'confirm-first-title',
    testId: 'confirm-first',
    heading: 'Confirm your email address first',
    text: 'We send alerts, to your address and to your channels, once you have confirmed that our mails reach you: open the link we mailed you.',
    back: { href: '/', words: 'Your account' },
  });
}

/**
 * The page an added address's confirmation link opens: it changes
 * nothing (mail scanners open every link), and holds one form whose POST
 * confirms the address.
 *
 * @param address the address the link confirms (shown masked)
 * @returns the whole document, with `channel-confirm` (docs/contract.md)
 */
export function confirmChannelPage(
  productName: string,
  token: string,
  address: string,
): string {
  const product = escapeHtml(productName);
  return layout(
    productName,
    'Confirm this address for alerts',
    `<section class="card" aria-labelledby="confirm-title">
<h1 id="confirm-title" class="card__title">Confirm this address for alerts</h1>
<p>Press the button, and <strong class="account__email">${escapeHtml(maskedAddress(address))}</strong> gets the website alerts of the ${product} account that added it. You can stop them from any alert mail.</p>
<form method="post" action="${CONFIRM_CHANNEL_PATH}" class="form">
<input type="hidden" name="token" value="${escapeHtml(token)}">
<button type="submit" class="button" data-testid="channel-confirm">Confirm this address</button>
</form>
</section>`,
  );
}

/**
 * What a confirmation answers: confirmed (the address, masked), or a
 * used, unknown or expired link (410).
 *
 * @returns the whole document, with `channel-confirmed` or
 *   `channel-confirm-refused` (docs/contract.md)
 */
export function channelConfirmedPage(
  productName: string,
  address: string | undefined,
): string {
  return address
    ? layout(
        productName,
        'Address confirmed',
        `<section class="card" aria-labelledby="confirmed-title">
<h1 id="confirmed-title" class="card__title">Address confirmed</h1>
<p data-testid="channel-confirmed"><strong class="account__email">${escapeHtml(maskedAddress(address))}</strong> is confirmed: it gets the account’s alerts from now on. Each alert mail has a link that stops them.</p>
</section>`,
      )
    : layout(
        productName,
        'Link not valid',
        `<section class="card" aria-labelledby="confirm-refused-title">
<h1 id="confirm-refused-title" class="card__title">This link does not work</h1>
<p data-testid="channel-confirm-refused">It has been used already, a newer link replaced it, it is more than ${CONFIRM_LINK_HOURS} hours old, or it was cut short. Ask whoever added this address to send it a new link.</p>
</section>`,
      );
}

/**
 * An alert mail's one-click unsubscribe page (RFC 8058): it changes
 * nothing, and holds one form whose POST to the same link stops the
 * alerts to this address.
 *
 * @param action the link's path and query, where the form posts
 * @returns the whole document, with `channel-unsubscribe`, or
 *   `channel-unsubscribed` when it is off already (docs/contract.md)
 */
export function unsubscribePage(
  productName: string,
  address: string,
  action: string,
  off: boolean,
): string {
  const shown = `<strong class="account__email">${escapeHtml(maskedAddress(address))}</strong>`;
  return layout(
    productName,
    'Stop alert mail to this address',
    `<section class="card" aria-labelledby="unsubscribe-title">
<h1 id="unsubscribe-title" class="card__title">Stop alert mail to this address</h1>
${
  off
    ? `<p data-testid="channel-unsubscribed">${shown} gets no more alerts from this account already.</p>`
    : `<p>Press the button, and ${shown} gets no more of the website alerts of the account that added it.</p>
<form method="post" action="${escapeHtml(action)}" class="form">
<button type="submit" class="button" data-testid="channel-unsubscribe">Stop alert mail</button>
</form>`
}
</section>`,
  );
}

/**
 * What an unsubscribe POST answers: done (the address, masked), or a link
 * that names no channel (404).
 *
 * @returns the whole document, with `channel-unsubscribed` or
 *   `channel-unsubscribe-refused` (docs/contract.md)
 */
export function unsubscribedPage(
  productName: string,
  address: string | undefined,
): string {
  return address
    ? layout(
        productName,
        'Alert mail stopped',
        `<section class="card" aria-labelledby="unsubscribed-title">
<h1 id="unsubscribed-title" class="card__title">Alert mail stopped</h1>
<p data-testid="channel-unsubscribed">We send no more alerts of this account to <strong class="account__email">${escapeHtml(maskedAddress(address))}</strong>.</p>
</section>`,
      )
    : layout(
        productName,
        'Link not valid',
        `<section class="card" aria-labelledby="unsubscribe-refused-title">
<h1 id="unsubscribe-refused-title" class="card__title">This link is not valid</h1>
<p data-testid="channel-unsubscribe-refused">It names no alerts of ours: it may have been cut short. Open the link at the end of your latest alert mail again.</p>
</section>`,
      );
}
