/**
 * Sends consent records (`POST /2/consent/` on the page's own origin,
 * contract/consentRecord.ts; ADR-0068) with `fetch` and
 * `keepalive`, and reads the service's answer: a record is done with only
 * once the service has stored it (2xx), or has refused it for good. A
 * chunk of its own, which the page's recorder (src/consent/consentRecorder.ts)
 * fetches when it has a record to send: most visits make no choice.
 * Nothing here throws.
 */
import {
  CONSENT_RECORD_PATH,
  consentRecordBody,
  type ConsentRecordRequest,
} from '../../contract/consentRecord';

/** How records go. */
export interface ConsentNetwork {
  /** The network's `fetch`; absent where there is none (the prerender). */
  fetch?: typeof fetch;
}

/**
 * @returns true when the record needs no further try: the service stored
 *   it (2xx), or refused it with a 4xx that sending it again cannot change
 *   (RFC 9110 §15: 408 and 429 are worth repeating, other 4xx are not);
 *   false when it goes again on a later load (no answer, a time-out, a
 *   rate limit, a server error)
 */
async function send(
  network: ConsentNetwork,
  record: ConsentRecordRequest,
): Promise<boolean> {
  let response: Response | undefined;
  try {
    response = await network.fetch?.(CONSENT_RECORD_PATH, {
      method: 'POST',
      // A form body, as the service reads; `keepalive` lets the request
      // finish when the page unloads (though its answer is then unread,
      // and the record goes again on the next load).
      body: consentRecordBody(record),
      keepalive: true,
      // The record names its browser by its consent id: no cookie needed.
      credentials: 'omit',
    });
  } catch {
    return false;
  }
  if (response === undefined) return false;
  const { ok, status } = response;
  return (
    ok || (status >= 400 && status < 500 && status !== 408 && status !== 429)
  );
}

/**
 * Sends each record, and calls `done` with each one the service stored or
 * refused for good; a record it did not answer for stays with the caller.
 *
 * @param records the records to send, oldest first
 * @param done called once per record that needs no further try
 */
export function sendConsentRecords(
  network: ConsentNetwork,
  records: readonly ConsentRecordRequest[],
  done: (record: ConsentRecordRequest) => void,
): void {
  for (const record of records) {
    void send(network, record).then((settled) => {
      if (settled) done(record);
    });
  }
}
