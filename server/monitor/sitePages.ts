/**
 * An account's sites as the pages show them (issue 59; ADR-0127): the list on
 * `/`, a site's page, the form that adds or edits one, the step that
 * confirms a removal. Server-rendered, without script: every action is a
 * form that posts and is answered with a redirect (post/redirect/get); a
 * refused form comes back with GOV.UK's error summary, each field's own
 * message and what was typed. Pure: HTML from values, every value escaped.
 */
import { cardPage, errorSummary, formField, formTitle } from '../http/forms';
import { escapeHtml, layout } from '../http/html';
import type { MonitorView } from './repository';
import { sitePath, siteStatus, stateLine, type CheckNowNote } from './page';
import type { SiteFormError, SiteFormValues } from './siteForm';
import {
  INTERVAL_FACTORS,
  type SiteDay,
  type SiteIncident,
  type SiteSummary,
} from './sites';
import {
  agoInWords,
  dayInWords,
  describeCause,
  durationInWords,
  intervalInWords,
  momentInWords,
} from './words';

/** Where the form that adds a site is. */
export const NEW_SITE_PATH = '/sites/new';
/** Where that form posts. */
export const SITES_PATH = '/sites';

/** Where a site's form is, filled. */
export function editSitePath(siteId: string): string {
  return `${sitePath(siteId)}/edit`;
}
/** Where a site is paused and resumed. */
export function pauseSitePath(siteId: string): string {
  return `${sitePath(siteId)}/pause`;
}
export function resumeSitePath(siteId: string): string {
  return `${sitePath(siteId)}/resume`;
}
/** The removal's confirmation step (GET) and the removal (POST). */
export function removeSitePath(siteId: string): string {
  return `${sitePath(siteId)}/remove`;
}

/** What a site's page says after an action that led to it. */
export type SiteNote = 'added' | 'saved' | 'paused' | 'resumed';

/** What `/` says after a site was removed. */
export type SitesNote = 'removed';

/** The site's name as shown: its own, or its URL's host. */
export function shownName(site: {
  name: string | null;
  siteUrl: string;
}): string {
  return site.name ?? (URL.parse(site.siteUrl)?.host || site.siteUrl);
}

/** A share of checks up, as the pages write it: `99.95 %`, `100 %`. */
function percentUp(up: number, checks: number): string {
  const share = (up / checks) * 100;
  // Never round a failure away to 100 %, nor a success to 0 %.
  const shown =
    up < checks && share > 99.99
      ? 99.99
      : up > 0 && share < 0.01
        ? 0.01
        : Math.round(share * 100) / 100;
  return `${shown.toLocaleString('en-GB')}\u00a0%`;
}

/** What the list on `/` needs beside the sites. */
export interface SitesListContext {
  now: Date;
  /** `MONITOR_INTERVAL_SECONDS`, in ms. */
  baseIntervalMs: number;
  /** `SITES_PER_ACCOUNT`. */
  limit: number;
  note?: SitesNote | undefined;
}

/**
 * The account's sites on `/`: each with its name (a link to its page),
 * URL, state in words and shape, last check and uptime over 24 hours;
 * "Add a site" below them; with no site, a sentence that says so.
 *
 * @returns HTML with `site`, `site-link`, `site-name`, `site-url`,
 *   `monitor-state`, `no-sites`, `add-site` (docs/contract.md)
 */
export function sitesSection(
  sites: readonly SiteSummary[],
  context: SitesListContext,
): string {
  const { now } = context;
  const removed =
    context.note === 'removed'
      ? `<p class="monitor__note" role="status" data-testid="site-removed">The site is removed, with its history.</p>\n`
      : '';
  const items = sites.map((site) => {
    const state = site.pausedAt ? 'paused' : site.state;
    const last = site.checkedAt
      ? `Last checked <time datetime="${site.checkedAt.toISOString()}">${escapeHtml(agoInWords(now.getTime() - site.checkedAt.getTime()))}</time>`
      : 'Not checked yet';
    const uptime =
      site.day.checks > 0
        ? `Up ${percentUp(site.day.up, site.day.checks)} of the last 24 hours’ checks`
        : 'No checks in the last 24 hours';
    const every = intervalInWords(
      (context.baseIntervalMs * site.intervalFactor) / 1000,
    );
    const stopped = site.alertsStoppedAt
      ? `<p class="sites__stopped" data-testid="alerts-stopped">Alert mail stopped. <a href="${sitePath(site.id)}#alerts">Turn it back on</a></p>\n`
      : '';
    return `<li class="sites__item" data-testid="site">
<h3 class="sites__name"><a href="${sitePath(site.id)}" data-testid="site-link"><span data-testid="site-name">${escapeHtml(shownName(site))}</span></a></h3>
<p class="sites__url" data-testid="site-url">${escapeHtml(site.siteUrl)}</p>
${stateLine(state)}
<p class="sites__facts">${last}. ${escapeHtml(uptime)}. ${site.pausedAt ? 'Checks paused' : `Checked ${escapeHtml(every)}`}.</p>
${stopped}</li>`;
  });
  const list =
    sites.length === 0
      ? `<p data-testid="no-sites">You are not watching any site yet. Add one, and we check it around the clock and email you when it stops answering.</p>\n`
      : `<ul class="sites__list">\n${items.join('\n')}\n</ul>\n`;
  const room =
    sites.length >= context.limit
      ? `<p class="monitor__meaning">You have ${sites.length} sites, the most an account can have. Remove one to add another.</p>\n`
      : '';
  return `<section class="monitor sites" aria-labelledby="sites-title">
<h2 id="sites-title" class="monitor__title">Your sites</h2>
${removed}${list}${room}<p class="sites__add"><a class="button button--secondary" href="${NEW_SITE_PATH}" data-testid="add-site">Add a site</a></p>
</section>
`;
}

/**
 * The last 90 days as bars, one per day, each as tall as its share of
 * checks up (a day with no check: a short outlined stub), and their text
 * alternative first: the share over the days checked, and every day with
 * a failed check, in a table.
 */
function uptimeDays(days: readonly SiteDay[], now: Date): string {
  const today = Date.UTC(
    now.getUTCFullYear(),
    now.getUTCMonth(),
    now.getUTCDate(),
  );
  const first = today - 89 * 86_400_000;
  const byDay = new Map(days.map((day) => [day.day.getTime(), day]));
  const checks = days.reduce((sum, day) => sum + day.checks, 0);
  const up = days.reduce((sum, day) => sum + day.up, 0);
  const bad = days.filter((day) => day.up < day.checks);
  const summary =
    checks === 0
      ? 'Last 90 days: no checks yet.'
      : `Last 90 days: up ${percentUp(up, checks)} of ${checks.toLocaleString('en-GB')} ${checks === 1 ? 'check' : 'checks'}, over ${days.length} ${days.length === 1 ? 'day' : 'days'} with checks; ${bad.length === 0 ? 'no day with a failed check' : `${bad.length} ${bad.length === 1 ? 'day' : 'days'} with failed checks`}.`;
  const bars = Array.from({ length: 90 }, (_, index) => {
    const at = first + index * 86_400_000;
    const day = byDay.get(at);
    const x = index * 6;
    if (!day || day.checks === 0) {
      return `<rect class="days__none" x="${x + 1}" y="30" width="4" height="6"/>`;
    }
    const share = day.up / day.checks;
    const height = Math.max(4, Math.round(share * 34));
    return `<rect class="days__bar${day.up < day.checks ? ' days__bar--failed' : ''}" x="${x + 1}" y="${36 - height}" width="4" height="${height}"/>`;
  }).join('');
  const table =
    bad.length === 0
      ? ''
      : `<details class="days__details">
<summary>Days with failed checks</summary>
<table class="days__table">
<thead><tr><th scope="col">Day</th><th scope="col">Checks up</th></tr></thead>
<tbody>
${bad
  .map(
    (day) =>
      `<tr><td>${escapeHtml(dayInWords(day.day.toISOString()))}</td><td>${percentUp(day.up, day.checks)} of ${day.checks.toLocaleString('en-GB')}</td></tr>`,
  )
  .join('\n')}
</tbody>
</table>
</details>
`;
  return `<figure class="days" data-testid="site-uptime">
<figcaption id="days-summary">${escapeHtml(summary)}</figcaption>
<svg class="days__chart" viewBox="0 0 540 36" preserveAspectRatio="none" role="img" aria-labelledby="days-summary" focusable="false">${bars}</svg>
<p class="monitor__legend" aria-hidden="true"><span>90 days ago</span><span></span><span>today</span></p>
${table}</figure>`;
}

/** One incident: when, how long, why; newest first. */
function incidentsList(
  incidents: readonly SiteIncident[],
  page: number,
  older: boolean,
  siteId: string,
  now: Date,
  userAgent: string,
): string {
  const items = incidents.map((incident) => {
    const start = incident.startedAt.toISOString();
    const end = incident.endedAt?.toISOString();
    const length = durationInWords(
      (incident.endedAt ?? now).getTime() - incident.startedAt.getTime(),
    );
    const when = end
      ? `From <time datetime="${start}">${escapeHtml(momentInWords(start))}</time> to <time datetime="${end}">${escapeHtml(momentInWords(end))}</time> (${escapeHtml(length)})`
      : `Since <time datetime="${start}">${escapeHtml(momentInWords(start))}</time> (${escapeHtml(length)} so far)`;
    const flaps =
      incident.flaps > 1 ? ` It went down ${incident.flaps} times in it.` : '';
    return `<li class="incidents__item" data-testid="incident"><p>${when}: ${escapeHtml(describeCause(incident.reason, userAgent))}.${escapeHtml(flaps)}</p></li>`;
  });
  const pages = [
    page > 1
      ? `<a href="${sitePath(siteId)}?page=${page - 1}#incidents">Newer incidents</a>`
      : '',
    older
      ? `<a href="${sitePath(siteId)}?page=${page + 1}#incidents">Older incidents</a>`
      : '',
  ].filter((link) => link !== '');
  const body =
    incidents.length === 0
      ? `<p>${page > 1 ? 'No older incidents.' : 'No incidents: the site has not been down since we started watching it.'}</p>`
      : `<ol class="incidents__list">\n${items.join('\n')}\n</ol>`;
  return `<section class="incidents" id="incidents" aria-labelledby="incidents-title">
<h2 id="incidents-title" class="monitor__title">Incidents${page > 1 ? `, page ${page}` : ''}</h2>
${body}
${pages.length > 0 ? `<nav class="incidents__pages" aria-label="Incident pages">${pages.join(' ')}</nav>\n` : ''}</section>`;
}

/** What a site's page shows beside its checks. */
export interface SitePageContext {
  now: Date;
  userAgent: string;
  baseIntervalMs: number;
  days: readonly SiteDay[];
  incidents: readonly SiteIncident[];
  /** The incidents' page (1: the newest), and whether an older one exists. */
  page: number;
  older: boolean;
  check?: CheckNowNote | undefined;
  note?: SiteNote | undefined;
}

const SITE_NOTES: Readonly<Record<SiteNote, string>> = {
  added: 'The site is added. Its first check runs within seconds.',
  saved: 'Your changes are saved.',
  paused: 'The site is paused: we do not check it or send alerts about it.',
  resumed: 'The site is checked again. Its next check runs within seconds.',
};

/**
 * A site's page: what `/` showed of the one site before (state, latest
 * check, certificate, 24 hours, "Check now"), its uptime per day over 90
 * days and its incidents, newest first, a page at a time; and its
 * actions: edit, pause or resume, remove.
 *
 * @returns the whole document, with `site-page`, `site-uptime`,
 *   `incident`, `edit-site`, `pause-site` or `resume-site`, `site-paused`
 *   when paused, `remove-site` (docs/contract.md)
 */
export function sitePage(
  productName: string,
  view: MonitorView,
  context: SitePageContext,
): string {
  const name = shownName(view);
  const every = intervalInWords(
    (context.baseIntervalMs * view.intervalFactor) / 1000,
  );
  const note = context.note
    ? `<p class="message message--success" role="status" data-testid="site-note">${escapeHtml(SITE_NOTES[context.note])}</p>\n`
    : '';
  const pause = view.pausedAt
    ? `<form method="post" action="${resumeSitePath(view.id)}" data-testid="resume-site"><button type="submit" class="button button--secondary">Resume checks</button></form>`
    : `<form method="post" action="${pauseSitePath(view.id)}" data-testid="pause-site"><button type="submit" class="button button--secondary">Pause checks</button></form>`;
  return layout(
    productName,
    name,
    `<section class="card monitor site" aria-labelledby="site-title" data-testid="site-page">
<p class="card__aside site__back"><a href="/">All your sites</a></p>
${note}<h1 id="site-title" class="card__title">${escapeHtml(name)}</h1>
<p class="sites__url" data-testid="site-url">${escapeHtml(view.siteUrl)}</p>
<p class="monitor__meaning">Checked ${escapeHtml(every)}.</p>
<div id="alerts">
${siteStatus(view, context.now, context.userAgent, context.check)}</div>
${uptimeDays(context.days, context.now)}
${incidentsList(context.incidents, context.page, context.older, view.id, context.now, context.userAgent)}
<div class="site__actions">
<a class="button button--secondary" href="${editSitePath(view.id)}" data-testid="edit-site">Edit</a>
${pause}
<form method="get" action="${removeSitePath(view.id)}" data-testid="remove-site"><button type="submit" class="button button--secondary">Remove</button></form>
</div>
</section>`,
  );
}

/** The form's fields and their labels, in the form's order. */
const FIELD_LABELS: Readonly<Record<keyof SiteFormValues, string>> = {
  url: 'Website address',
  name: 'Name (optional)',
  interval: 'How often to check it',
};

/** What the site form page needs. */
export interface SiteFormContext {
  /** Add a site, or edit one (its id and current name). */
  mode: { kind: 'add' } | { kind: 'edit'; siteId: string; name: string };
  values: SiteFormValues;
  errors: readonly SiteFormError[];
  baseIntervalMs: number;
}

/** The form's values for a site as it is (the edit form, filled). */
export function siteFormValuesOf(
  site: { siteUrl: string; name: string | null; intervalFactor: number },
  baseIntervalMs: number,
): SiteFormValues {
  return {
    url: site.siteUrl,
    name: site.name ?? '',
    interval: String((baseIntervalMs / 1000) * site.intervalFactor),
  };
}

/**
 * The site form, to add a site or edit one: URL, name, interval. A
 * refused form shows GOV.UK's error summary first (focused on load, each
 * item a link to its field), each field's own message, and what was
 * typed.
 *
 * @returns the whole document, with `site-form` and, when refused,
 *   `error-summary` (docs/contract.md)
 */
export function siteFormPage(
  productName: string,
  context: SiteFormContext,
): string {
  const { values, errors, mode } = context;
  const title = mode.kind === 'add' ? 'Add a site' : `Edit ${mode.name}`;
  const field = (
    name: keyof SiteFormValues,
    control: (aria: string) => string,
    hint: string,
  ) => formField({ name, label: FIELD_LABELS[name], hint, control }, errors);
  const baseSeconds = context.baseIntervalMs / 1000;
  const options = INTERVAL_FACTORS.map((factor) => {
    const seconds = String(factor * baseSeconds);
    const words = intervalInWords(factor * baseSeconds);
    return `<option value="${seconds}"${values.interval === seconds ? ' selected' : ''}>${escapeHtml(words.charAt(0).toUpperCase() + words.slice(1))}</option>`;
  }).join('');
  const action = mode.kind === 'add' ? SITES_PATH : sitePath(mode.siteId);
  const back = mode.kind === 'add' ? '/' : sitePath(mode.siteId);
  return layout(
    productName,
    formTitle(title, errors),
    `<section class="card" aria-labelledby="site-form-title">
${errorSummary(errors)}<h1 id="site-form-title" class="card__title">${escapeHtml(title)}</h1>
<form method="post" action="${action}" class="form" data-testid="site-form" novalidate>
${field(
  'url',
  (aria) =>
    `<input class="field__input" id="url" name="url" type="text" inputmode="url" autocomplete="url" spellcheck="false" autocapitalize="none" value="${escapeHtml(values.url)}"${aria}>`,
  'Like shop.example.com. We check it the way a visitor would open it.',
)}
${field(
  'name',
  (aria) =>
    `<input class="field__input" id="name" name="name" type="text" autocomplete="off" value="${escapeHtml(values.name)}"${aria}>`,
  'What the alerts call it, like “Shop”. Without one, we use its address.',
)}
${field(
  'interval',
  (aria) =>
    `<select class="field__input" id="interval" name="interval"${aria}>${options}</select>`,
  'A failed check is checked again within seconds before we send an alert.',
)}
<button type="submit" class="button">${mode.kind === 'add' ? 'Add the site' : 'Save changes'}</button>
</form>
<p class="card__aside"><a href="${back}">Cancel</a></p>
</section>`,
  );
}

/**
 * The step before a removal: what goes with the site, and the form that
 * removes it.
 *
 * @returns the whole document, with `confirm-remove` (docs/contract.md)
 */
export function confirmRemovePage(
  productName: string,
  site: { id: string; name: string | null; siteUrl: string },
): string {
  const name = shownName(site);
  return layout(
    productName,
    `Remove ${name}`,
    `<section class="card" aria-labelledby="remove-title">
<h1 id="remove-title" class="card__title">Remove ${escapeHtml(name)}?</h1>
<p>We stop checking <strong class="sites__url">${escapeHtml(site.siteUrl)}</strong> and delete its history: its checks, its uptime and its incidents, and any alert about it not yet sent. This cannot be undone.</p>
<form method="post" action="${removeSitePath(site.id)}" class="form" data-testid="confirm-remove">
<button type="submit" class="button button--danger">Remove the site</button>
</form>
<p class="card__aside"><a href="${sitePath(site.id)}">Keep it</a></p>
</section>`,
  );
}

/** What a page of a site the account does not have answers (404). */
export function siteNotFoundPage(productName: string): string {
  return cardPage(productName, {
    title: 'Site not found',
    headingId: 'missing-title',
    testId: 'site-not-found',
    heading: 'There is no such site',
    text: 'Your account has no site at this address. It may have been removed.',
    back: { href: '/', words: 'All your sites' },
  });
}

/**
 * What adding a site answers while the owner's address is unconfirmed
 * (ADR-0120: nothing is checked for an unproven address but the sign-up's
 * first check).
 */
export function confirmFirstPage(productName: string): string {
  return cardPage(productName, {
    title: 'Confirm your address first',
    headingId: 'confirm-first-title',
    testId: 'confirm-first',
    heading: 'Confirm your email address first',
    text: 'We add sites, and check them, once you have confirmed that our alerts reach you: open the link we mailed you.',
    back: { href: '/', words: 'Your account' },
  });
}
