/**
 * The monitor model tests' oracle, written by hand from the up/down
 * issue's requirement and never from machines/monitorMachine.ts, which it
 * judges. It counts failed checks in a row, as the requirement speaks of
 * them, where the machine has states: no check yet is `pending`, none
 * failing `up`, one `suspect` (retested after a third of the interval),
 * two or more `down` (the incident, from the first of them). The "down"
 * mail goes when the second failure in a row comes, the "back up" mail
 * when a check is up after two or more; nothing else sends a mail.
 */
import type {
  DownCause,
  MonitorAlert,
  MonitorContext,
  MonitorEvent,
  MonitorState,
} from '../../machines/monitorMachine';

/** What the scheduler and the page must read of a site after a check. */
export interface MonitorExpectation {
  state: MonitorState;
  context: MonitorContext;
  /** The next check comes after a third of the interval (`suspect`). */
  retest: boolean;
  /** Some check has run (not `pending`). */
  checked: boolean;
  /** The incident going on: since its first failure, the latest reason. */
  incident: { startedAt: number; reason: DownCause } | null;
}

/** The reference site: its checks so far, as failures in a row. */
export class MonitorReference {
  private checks = 0;
  private failuresInRow = 0;
  private firstFailureAt: number | null = null;
  private latestReason: DownCause | null = null;

  expectation(): MonitorExpectation {
    const state: MonitorState =
      this.checks === 0
        ? 'pending'
        : this.failuresInRow === 0
          ? 'up'
          : this.failuresInRow === 1
            ? 'suspect'
            : 'down';
    const incident =
      this.failuresInRow >= 2 &&
      this.firstFailureAt !== null &&
      this.latestReason !== null
        ? { startedAt: this.firstFailureAt, reason: this.latestReason }
        : null;
    return {
      state,
      context: {
        failingSince: this.firstFailureAt,
        reason: this.latestReason,
      },
      retest: this.failuresInRow === 1,
      checked: this.checks > 0,
      incident,
    };
  }

  /** @returns the alerts the check must queue, in order */
  step(check: MonitorEvent): MonitorAlert[] {
    this.checks += 1;
    if (check.type === 'check.up') {
      const ended = this.failuresInRow >= 2;
      const startedAt = this.firstFailureAt;
      this.failuresInRow = 0;
      this.firstFailureAt = null;
      this.latestReason = null;
      // The incident's length is endedAt - startedAt.
      return ended && startedAt !== null
        ? [{ kind: 'up', startedAt, endedAt: check.at }]
        : [];
    }
    this.failuresInRow += 1;
    if (this.failuresInRow === 1) this.firstFailureAt = check.at;
    this.latestReason = check.reason;
    // The second failure in a row starts the incident; later ones are in it.
    return this.failuresInRow === 2 && this.firstFailureAt !== null
      ? [{ kind: 'down', startedAt: this.firstFailureAt, reason: check.reason }]
      : [];
  }
}

/**
 * The requirement's promise over a whole run of checks, stated apart from
 * the reference's steps: each run of two or more failed checks in a row is
 * one incident, which gives one "down" mail (from its first failure, with
 * its second's reason) and, if a check up ends it, one "back up" mail
 * lasting from its first failure to that check.
 *
 * @returns every alert the checks must queue, in order
 */
export function incidentAlerts(
  checks: readonly MonitorEvent[],
): MonitorAlert[] {
  const alerts: MonitorAlert[] = [];
  let run: Extract<MonitorEvent, { type: 'check.down' }>[] = [];
  for (const check of checks) {
    if (check.type === 'check.down') {
      run.push(check);
      const [first, second] = run;
      if (run.length === 2 && first && second) {
        alerts.push({
          kind: 'down',
          startedAt: first.at,
          reason: second.reason,
        });
      }
      continue;
    }
    const [first] = run;
    if (run.length >= 2 && first) {
      alerts.push({ kind: 'up', startedAt: first.at, endedAt: check.at });
    }
    run = [];
  }
  return alerts;
}
