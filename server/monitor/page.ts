/**
 * What `/` shows of the watched site (issue 45; ADR-0106),
 * rendered on the server, without script: the state in words, the latest
 * check, the certificate, the last 24 hours as an inline SVG with its text
 * alternative, and "Check now". Pure: HTML from values. Its stylesheet is
 * ./monitor.css, served with the account page's.
 */
import type { MonitorState } from '../../machines/monitorMachine';
import { escapeHtml, layout } from '../http/html';
import type { MonitorHour, MonitorView } from './repository';
import {
  agoInWords,
  dayInWords,
  describeResult,
  durationInWords,
  momentInWords,
} from './words';

/**
 * A time in milliseconds, its number and unit kept on one line (a no-break
 * space): `2 ms`, never `2` at a line's end and `ms` on the next.
 */
function msOf(ms: number): string {
  return `${Math.round(ms)}\u00a0ms`;
}

/** A site's page (ADR-0127): `/sites/{id}`. */
export function sitePath(siteId: string): string {
  return `/sites/${siteId}`;
}
/** Where a site's "Check now" posts. */
export function checkNowPath(siteId: string): string {
  return `${sitePath(siteId)}/check-now`;
}
/** Where a site's "Send alerts again" posts (ADR-0124). */
export function resumeAlertsPath(siteId: string): string {
  return `${sitePath(siteId)}/alerts/resume`;
}
/** Where an alert mail's stop link points (ADR-0124); served by the monitor. */
export const ALERTS_STOP_PATH = '/alerts/stop';

/** What a site page's `?check=` says after "Check now" (ADR-0106). */
export type CheckNowNote =
  'checked' | 'limited' | 'running' | 'queued' | 'unconfirmed' | 'paused';

/** What a site shows: its machine's state, or paused (ADR-0127). */
export type ShownState = MonitorState | 'paused';

/** A state in words, never by colour alone. */
export const STATE_WORDS: Readonly<Record<ShownState, string>> = {
  pending: 'Checking for the first time',
  up: 'Up',
  suspect: 'Checking again',
  down: 'Down',
  paused: 'Paused',
};

/** What each state means, under its name. */
const STATE_NOTES: Readonly<Record<ShownState, string>> = {
  paused:
    'We do not check the site or send alerts about it until you resume it.',
  pending: 'Its first check runs within seconds.',
  up: 'The site answered its latest check.',
  suspect:
    'The latest check failed. We check again shortly before we call it down, so that one lost answer sends no alert.',
  down: 'The site has failed two checks in a row.',
};

/** The latest check: when (relative and absolute), and what it found. */
function lastCheck(view: MonitorView, now: Date, userAgent: string): string {
  const check = view.lastCheck;
  if (!check) {
    return `<p class="monitor__last" data-testid="monitor-last-check">Not checked yet.</p>`;
  }
  const when = view.checkedAt ?? new Date(check.checkedAt);
  const found =
    check.outcome === 'up'
      ? `HTTP ${check.status ?? ''} in ${msOf(check.timings.totalMs)}`
      : describeResult(check, userAgent);
  return `<p class="monitor__last" data-testid="monitor-last-check">Last checked <time datetime="${when.toISOString()}">${escapeHtml(agoInWords(now.getTime() - when.getTime()))} (${escapeHtml(momentInWords(when.toISOString()))})</time>: ${escapeHtml(found)}</p>`;
}

/** The certificate of an https site: valid until, days left, or its error. */
function certificate(view: MonitorView): string {
  if (!view.siteUrl.toLowerCase().startsWith('https:')) return '';
  const cert = view.lastCheck?.certificate;
  if (!cert) {
    return `<p class="monitor__certificate" data-testid="monitor-certificate">Certificate: not read yet.</p>`;
  }
  const until = dayInWords(cert.validTo);
  const words = cert.error
    ? `does not verify (${cert.error}); valid until ${until}, issued by ${cert.issuer}.`
    : cert.daysLeft < 0
      ? `expired on ${until}.`
      : `valid until ${until} (${cert.daysLeft} ${cert.daysLeft === 1 ? 'day' : 'days'} left), issued by ${cert.issuer}.`;
  return `<p class="monitor__certificate" data-testid="monitor-certificate">Certificate: ${escapeHtml(words)}</p>`;
}

/**
 * The median of the hourly medians, each weighted by the checks that were
 * up in its hour: the exact median needs every raw check, which is kept
 * for a few hours only (ADR-0107).
 */
function typicalMs(hours: readonly MonitorHour[]): number | null {
  const weighted = hours
    .filter((hour) => hour.medianMs !== null && hour.up > 0)
    .map((hour) => ({ ms: hour.medianMs ?? 0, weight: hour.up }))
    .sort((a, b) => a.ms - b.ms);
  const total = weighted.reduce((sum, entry) => sum + entry.weight, 0);
  let seen = 0;
  for (const entry of weighted) {
    seen += entry.weight;
    if (seen * 2 >= total) return entry.ms;
  }
  return null;
}

/**
 * The chart's box, in SVG units: 24 slots of an hour. The SVG stretches to
 * the column's width at a fixed height (./monitor.css), so a phone's
 * chart is as tall as a desktop's; its lines keep their width
 * (`vector-effect`), and no text is drawn in it, where the stretch would
 * distort it: the labels are HTML around it.
 */
const CHART = {
  width: 480,
  height: 100,
  slot: 20,
  /** A bar's width: the hour's median. */
  bar: 12,
  /** How far the slowest tick reaches past its bar on each side. */
  overhang: 4,
  /** The dashed line at the scale's top (the slowest answer). */
  top: 2,
  /** The baseline: 0 ms. */
  axis: 84,
  /** The band under the baseline where a failed check is marked. */
  failedY: 89,
  failedHeight: 9,
} as const;

/** A bar's, tick's and failure mark's swatch in the chart's key. */
const KEY = [
  [
    '<rect class="chart__bar" x="4.5" y="2.5" width="7" height="13"/>',
    'Median response in the hour',
  ],
  [
    '<line class="chart__slowest" x1="1" x2="15" y1="8" y2="8"/>',
    'Slowest in the hour',
  ],
  [
    '<rect class="chart__down" x="4" y="5" width="8" height="8"/>',
    'A failed check in the hour',
  ],
] as const;

/**
 * The last 24 hours as an inline SVG (one bar per hour: the median
 * response time, a tick at the slowest, reaching past the bar so that it
 * shows where they meet; a mark under the baseline for an hour with a
 * failed check) and its text alternative, first in the figure: the
 * median, the slowest and the time down. Around the SVG, hidden from
 * assistive technology, which reads the text alternative: the scale's
 * top, the time axis and a key, so that the picture reads without colour.
 * Colours come from classes of ./monitor.css, so the dark scheme and
 * forced colours restyle it.
 */
function chart(view: MonitorView, now: Date): string {
  const slowest = view.hours.reduce<number | null>(
    (max, hour) =>
      hour.slowestMs === null ? max : Math.max(max ?? 0, hour.slowestMs),
    null,
  );
  const typical = typicalMs(view.hours);
  // `21 seconds`, `2 hours 5 minutes`: each number kept with its unit.
  const down = durationInWords(view.downMs).replace(/(\d) /g, '$1\u00a0');
  const summary =
    typical === null || slowest === null
      ? `No answer recorded in the last 24 hours yet. Time down: ${down}.`
      : `Last 24 hours: median response ${msOf(typical)}, slowest ${msOf(slowest)}, time down ${down}.`;
  const scale = Math.max(slowest ?? 1, 1);
  const plot = CHART.axis - CHART.top;
  const yOf = (ms: number) => CHART.axis - Math.round((ms / scale) * plot);
  const start = Math.floor(now.getTime() / 3_600_000) - 23;
  const shapes = view.hours.flatMap((hour) => {
    const slot = Math.floor(hour.hour.getTime() / 3_600_000) - start;
    if (slot < 0 || slot > 23) return [];
    const x = slot * CHART.slot + (CHART.slot - CHART.bar) / 2;
    const parts: string[] = [];
    if (hour.medianMs !== null) {
      const y = Math.min(yOf(hour.medianMs), CHART.axis - 2);
      parts.push(
        `<rect class="chart__bar" x="${x}" y="${y}" width="${CHART.bar}" height="${CHART.axis - y}"/>`,
      );
    }
    if (hour.slowestMs !== null) {
      const y = yOf(hour.slowestMs);
      parts.push(
        `<line class="chart__slowest" x1="${x - CHART.overhang}" x2="${x + CHART.bar + CHART.overhang}" y1="${y}" y2="${y}"/>`,
      );
    }
    if (hour.up < hour.checks) {
      parts.push(
        `<rect class="chart__down" x="${x}" y="${CHART.failedY}" width="${CHART.bar}" height="${CHART.failedHeight}"/>`,
      );
    }
    return parts;
  });
  const top =
    slowest === null
      ? ''
      : `<line class="chart__top" x1="0" x2="${CHART.width}" y1="${CHART.top}" y2="${CHART.top}"/>\n`;
  const scaleLabel =
    slowest === null
      ? ''
      : `<p class="chart__scale" aria-hidden="true">${msOf(slowest)}</p>\n`;
  // A key only for marks drawn: an empty day needs none.
  const key =
    shapes.length === 0
      ? ''
      : `<ul class="chart__key" aria-hidden="true">${KEY.map(
          ([swatch, words]) =>
            `<li><svg class="chart__swatch" viewBox="0 0 16 16" focusable="false">${swatch}</svg>${words}</li>`,
        ).join('')}</ul>\n`;
  // Nothing to draw yet (a site not checked, or not answering all day):
  // the words alone, rather than an empty frame.
  if (shapes.length === 0) {
    return `<figure class="monitor__chart" data-testid="monitor-chart">
<figcaption id="monitor-chart-summary">${escapeHtml(summary)}</figcaption>
</figure>`;
  }
  return `<figure class="monitor__chart" data-testid="monitor-chart">
<figcaption id="monitor-chart-summary">${escapeHtml(summary)}</figcaption>
${scaleLabel}<svg class="chart" viewBox="0 0 ${CHART.width} ${CHART.height}" preserveAspectRatio="none" role="img" aria-labelledby="monitor-chart-summary" focusable="false">
${top}<line class="chart__axis" x1="0" x2="${CHART.width}" y1="${CHART.axis}" y2="${CHART.axis}"/>
${shapes.join('\n')}
</svg>
<p class="monitor__legend" aria-hidden="true"><span>24 hours ago</span><span>12 hours ago</span><span>now</span></p>
${key}</figure>`;
}

/** What `/?check=` says. */
function checkNowNote(note: CheckNowNote | undefined): string {
  if (note === undefined) return '';
  const text: Record<CheckNowNote, string> = {
    checked: 'We have just checked the site: the result is above.',
    limited:
      'The site was checked on request less than a minute ago. Please wait a minute before asking again.',
    running:
      'A check of the site is running now: its result appears here in a few seconds.',
    queued:
      'The site will be checked within a few seconds: reload this page to see the result.',
    unconfirmed:
      'We check the site on request, and on its schedule, once you have confirmed your address: open the link we mailed you.',
    paused: 'The site is paused: resume it to check it.',
  };
  return `<p class="monitor__note" role="status" data-testid="check-now-result">${escapeHtml(text[note])}</p>
`;
}

/**
 * While the owner's address is unconfirmed, the site is checked once
 * (ADR-0120): the section says so, and what starts monitoring.
 */
function waiting(view: MonitorView): string {
  if (view.confirmed) return '';
  return `<p class="monitor__meaning">${escapeHtml(
    view.lastCheck
      ? 'We checked the site once, when you signed up. We check it on its schedule once you have confirmed your address.'
      : 'We check the site on its schedule once you have confirmed your address.',
  )}</p>
`;
}

/**
 * Alert mail stopped from a mail's stop link (ADR-0124): since when, and a
 * form to send it again.
 */
function alertsStopped(view: MonitorView): string {
  if (!view.alertsStoppedAt) return '';
  const since = view.alertsStoppedAt.toISOString();
  return `<div class="monitor__note" data-testid="alerts-stopped">
<p>Alert mail for this site is stopped: you turned it off from an alert mail at <time datetime="${since}">${escapeHtml(momentInWords(since))}</time>. We still check the site; this page shows what we find.</p>
<form method="post" action="${resumeAlertsPath(view.id)}" class="monitor__action" data-testid="resume-alerts">
<button type="submit" class="button button--secondary">Send alerts again</button>
</form>
</div>
`;
}

/**
 * The page a stop link opens (ADR-0124): it changes nothing itself (mail
 * scanners open every link), and holds one form whose POST stops the
 * site's alert mail, as a mail provider's one-click POST does.
 *
 * @param productName `PRODUCT_NAME`
 * @param siteUrl the site whose alerts the link stops
 * @param action the link itself (path and query), which the form posts to
 * @param stopped whether its alert mail is stopped already
 * @returns the whole document (its values escaped)
 */
export function stopAlertsPage(
  productName: string,
  siteUrl: string,
  action: string,
  stopped: boolean,
): string {
  const site = `<strong>${escapeHtml(siteUrl)}</strong>`;
  return layout(
    productName,
    'Stop alert mail',
    `<section class="card" aria-labelledby="stop-title">
<h1 id="stop-title" class="card__title">Stop alert mail</h1>
${
  stopped
    ? `<p data-testid="alerts-stop-done">Alert mail for ${site} is stopped already. Turn it back on from your account.</p>`
    : `<p>Press the button to stop the mails that say ${site} is down or back up. We keep checking it, and you can turn them back on from your account.</p>
<form method="post" action="${escapeHtml(action)}" class="form">
<button type="submit" class="button" data-testid="alerts-stop">Stop alert mail</button>
</form>`
}
<p class="card__aside"><a href="/">Your account</a></p>
</section>`,
  );
}

/**
 * What a stop link's POST answers (ADR-0124): done, or a link that is not
 * a site's (404).
 *
 * @param siteUrl the site whose alerts stopped; undefined: the link is not
 *   valid
 */
export function alertsStoppedPage(
  productName: string,
  siteUrl: string | undefined,
): string {
  return layout(
    productName,
    siteUrl ? 'Alert mail stopped' : 'Link not valid',
    siteUrl
      ? `<section class="card" aria-labelledby="stopped-title">
<h1 id="stopped-title" class="card__title">Alert mail stopped</h1>
<p data-testid="alerts-stop-done">We no longer send mails about <strong>${escapeHtml(siteUrl)}</strong>. We keep checking it; turn the mails back on from your account.</p>
<p class="card__aside"><a href="/">Your account</a></p>
</section>`
      : `<section class="card" aria-labelledby="stop-refused-title">
<h1 id="stop-refused-title" class="card__title">This link is not valid</h1>
<p data-testid="alerts-stop-refused">It names no site of ours: it may have been cut short. Open the link at the end of your latest alert mail again.</p>
<p class="card__aside"><a href="/">Your account</a></p>
</section>`,
  );
}

/**
 * What a site's page shows of its checks: the state in words and shape,
 * the latest check, the certificate, the last 24 hours and "Check now".
 *
 * @param view the site's state, checks and hours (./repository.ts)
 * @param now the page's time: "3 minutes ago" and the chart's 24 hours
 * @param userAgent the checks' User-Agent, named when a site refuses robots
 * @param note the answer to "Check now", when this visit follows one
 * @returns HTML with `monitor-state`, `monitor-last-check`,
 *   `monitor-certificate` (https only), `monitor-chart` and `check-now`
 *   (docs/contract.md); every value escaped
 */
export function siteStatus(
  view: MonitorView,
  now: Date,
  userAgent: string,
  note?: CheckNowNote,
): string {
  const state: ShownState = view.pausedAt ? 'paused' : view.state;
  const paused = view.pausedAt
    ? `<p class="monitor__note" data-testid="site-paused">Paused since <time datetime="${view.pausedAt.toISOString()}">${escapeHtml(momentInWords(view.pausedAt.toISOString()))}</time>.</p>\n`
    : '';
  return `${stateLine(state)}
<p class="monitor__meaning">${escapeHtml(STATE_NOTES[state])}</p>
${paused}${view.pausedAt ? '' : waiting(view)}${lastCheck(view, now, userAgent)}
${certificate(view)}
${chart(view, now)}
${alertsStopped(view)}${checkNowNote(note)}${
    // A paused site is checked by no one: resuming it checks it.
    view.pausedAt
      ? ''
      : `<form method="post" action="${checkNowPath(view.id)}" class="monitor__action">
<button type="submit" class="button button--secondary" data-testid="check-now">Check now</button>
</form>
`
  }`;
}

/** A state in words, with its badge (a shape per state, ./monitor.css). */
export function stateLine(state: ShownState): string {
  return `<p class="monitor__state monitor__state--${state}" data-testid="monitor-state"><span class="monitor__badge" aria-hidden="true"></span><strong>${escapeHtml(STATE_WORDS[state])}</strong></p>`;
}

/**
 * The first item of "What happens next" on the first sign-in: the promise,
 * or the first check's real result once there is one.
 *
 * @returns HTML (its values escaped)
 */
export function firstCheckStep(
  view: MonitorView | null,
  userAgent: string,
): string {
  const check = view?.lastCheck;
  // Until the address is confirmed, the first check is the only one (ADR-0120).
  const then =
    view && !view.confirmed
      ? 'every minute, around the clock, once you have confirmed your address'
      : 'every minute, around the clock';
  if (!view || !check) {
    return `Your site’s first check runs within a minute, then ${then}.`;
  }
  const found =
    check.outcome === 'up'
      ? `up, HTTP ${check.status ?? ''} in ${msOf(check.timings.totalMs)}`
      : describeResult(check, userAgent);
  return escapeHtml(
    `Your site’s first check has run: ${found}. We check it ${then}.`,
  );
}
