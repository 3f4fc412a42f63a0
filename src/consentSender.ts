/**
 * Sends consent records (`POST /2/consent/`, common/consentRecord.ts; D68
 * in docs/decisions.md): with `navigator.sendBeacon`, or `fetch` with
 * `keepalive` where there is none or it refuses. A chunk of its own, which
 * the page's recorder (src/consentRecorder.ts) fetches when it has a record
 * to send: most visits make no choice. Nothing here throws.
 */
import {
  CONSENT_RECORD_PATH,
  consentRecordBody,
  type ConsentRecordRequest,
} from '../common/consentRecord';

/** Where and how records go. */
export interface ConsentNetwork {
  /** `API_ORIGIN`: '' for the page's own. */
  apiOrigin: string;
  /** `navigator.sendBeacon`, bound; absent where the browser has none. */
  sendBeacon?: (url: string, body: BodyInit) => boolean;
  /** The network's `fetch`. */
  fetch?: typeof fetch;
}

/**
 * @returns true once the record is on its way (the beacon is queued, or
 *   the fetch did not fail); false when it could not be sent
 */
async function send(
  network: ConsentNetwork,
  record: ConsentRecordRequest,
): Promise<boolean> {
  const url = `${network.apiOrigin}${CONSENT_RECORD_PATH}`;
  const body = consentRecordBody(record);
  try {
    // A form body: no CORS preflight, and the browser sends it even as
    // the page unloads.
    if (network.sendBeacon?.(url, body)) return true;
  } catch {
    // Fall back to fetch below.
  }
  try {
    const response = await network.fetch?.(url, {
      method: 'POST',
      body,
      keepalive: true,
      // The answer is not read: another origin's needs no CORS.
      mode: 'no-cors',
      credentials: 'omit',
    });
    return response?.type === 'opaque' || response?.ok === true;
  } catch {
    return false;
  }
}

/**
 * Sends each record, and calls `sent` with each one on its way.
 *
 * @param records the records to send, oldest first
 */
export function sendConsentRecords(
  network: ConsentNetwork,
  records: readonly ConsentRecordRequest[],
  sent: (record: ConsentRecordRequest) => void,
): void {
  for (const record of records) {
    void send(network, record).then((ok) => {
      if (ok) sent(record);
    });
  }
}
