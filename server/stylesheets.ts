/**
 * The stylesheet of the account pages (`/account.css`): the product's look,
 * shared with the sign-up page, then the account page's and the monitor's
 * own rules. Read once from the source tree, by paths relative to this
 * module, which hold both for `server/` and for the bundle in
 * `dist-server/` (each one folder below the project's root): so this module
 * stays at the top of `server/`.
 */
import { readFileSync } from 'node:fs';

/** The account pages' stylesheet, CSS text. */
export const ACCOUNT_STYLESHEET = [
  '../common/theme.css',
  '../server/accounts/accountPage.css',
  '../server/monitor/monitor.css',
]
  .map((path) => readFileSync(new URL(path, import.meta.url), 'utf8'))
  .join('\n');
