/**
 * The monitor's part of a confirmation (ADR-0120): a site whose owner has
 * not proven the address is checked once, at sign-up, then waits with no
 * next check (./repository.ts parks it as it writes that check). The
 * statement that confirms the address (server/accounts/links/links.ts)
 * resumes monitoring with this CTE, which the plugin registers with
 * `app.accounts.whenConfirmed`, so that the two commit together.
 */
import { sql, type QueryCreator, type RawBuilder } from 'kysely';
import type { SignUpDatabase } from '../accounts/index';
import type { MonitorTables } from './tables';

/**
 * A data-modifying CTE's body that makes the sites of the accounts
 * `accountIds` selects due at once. It also takes the claim of a check in
 * flight (the claims counter is the fencing token of ./repository.ts): its
 * result, read before the address was confirmed, would park the site
 * again, so it is not written and the site is checked anew.
 *
 * @param accountIds a query of one column, the ids of the accounts whose
 *   address the statement confirms (those unconfirmed until it)
 * @returns SQL for `name as (…)`, returning nothing
 */
export function resumeWatch(
  accountIds: RawBuilder<unknown>,
): RawBuilder<unknown> {
  return sql`update monitors set next_check_at = now(), lease_until = null,
         claims = monitors.claims + 1
   where monitors.account_id in (${accountIds})`;
}

/**
 * The monitor's part of a sign-up (`app.accounts.onSignUp`): the site the
 * visitor gave is the account's first, its first check due at once
 * (ADR-0103). A data-modifying CTE of the sign-up's one statement, reading
 * the account it makes.
 *
 * @param statement the sign-up's statement so far
 * @returns it with the CTE `watched`
 */
export function watchTheSite(
  statement: QueryCreator<SignUpDatabase<MonitorTables>>,
) {
  return statement.with('watched', (cte) =>
    cte
      .insertInto('monitors')
      .columns(['account_id', 'site_url'])
      .expression((eb) =>
        eb
          .selectFrom('account')
          .select(['account.id', 'account.site_url'])
          .where('account.site_url', 'is not', null),
      ),
  );
}
