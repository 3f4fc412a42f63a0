/**
 * The ad networks' consent commands as the page queues them (ADR-0066),
 * written out for the browser tests to expect.
 */

/**
 * Google's Consent Mode v2 command as `gtag('consent', command, …)` queues
 * it on `dataLayer` (read back as an array): all four types one value.
 */
export function googleConsentCommand(command: string, value: string) {
  return [
    'consent',
    command,
    {
      ad_storage: value,
      ad_user_data: value,
      ad_personalization: value,
      analytics_storage: value,
    },
  ];
}

/** Microsoft UET's consent command: three values pushed on `uetq`. */
export function uetConsentCommand(command: string, value: string) {
  return ['consent', command, { ad_storage: value }];
}
