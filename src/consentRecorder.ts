/**
 * Sends the proof of each consent choice to the service
 * (`POST /2/consent/`, common/consentRecord.ts; D68 in docs/decisions.md)
 * without ever holding the visitor up: the record is kept in the
 * browser's `localStorage` first, sent with `navigator.sendBeacon` (or
 * `fetch` with `keepalive` where there is none or it refuses), and
 * forgotten once it is on its way. One that could not be sent is sent
 * again on the next page load. Nothing here throws.
 */
import {
  CONSENT_RECORD_PATH,
  consentRecordBody,
  type ConsentRecordRequest,
} from '../common/consentRecord';

/** Records kept for a later try at most: the newest ones. */
export const PENDING_RECORDS_MAX = 10;

export interface ConsentRecorderOptions {
  /** `API_ORIGIN`: '' for the page's own. */
  apiOrigin: string;
  /** Where records wait (`localStorage`); its getter may throw. */
  storage?: () => Storage;
  /** Its key: `{product}_CONSENT_PENDING`. */
  pendingKey: string;
  /** `navigator.sendBeacon`, bound; absent where the browser has none. */
  sendBeacon?: (url: string, body: BodyInit) => boolean;
  /** The network's `fetch`. */
  fetch?: typeof fetch;
}

export interface ConsentRecorder {
  /** Keeps the record, then sends every kept record. */
  record(record: ConsentRecordRequest): void;
  /** Sends the records an earlier page kept (call once at load). */
  sendPending(): void;
}

/** A kept entry that can be sent: one this module wrote. */
function isRecord(value: unknown): value is ConsentRecordRequest {
  return typeof (value as ConsentRecordRequest | null)?.consentId === 'string';
}

/**
 * @returns the recorder; with no storage a record is sent once, and lost
 *   if that fails
 */
export function createConsentRecorder(
  options: ConsentRecorderOptions,
): ConsentRecorder {
  const url = `${options.apiOrigin}${CONSENT_RECORD_PATH}`;

  const read = (): ConsentRecordRequest[] => {
    try {
      const json = options.storage?.().getItem(options.pendingKey);
      const list: unknown = json ? JSON.parse(json) : [];
      return Array.isArray(list) ? list.filter(isRecord) : [];
    } catch {
      return [];
    }
  };
  const write = (records: ConsentRecordRequest[]): void => {
    try {
      const storage = options.storage?.();
      if (records.length === 0) storage?.removeItem(options.pendingKey);
      else storage?.setItem(options.pendingKey, JSON.stringify(records));
    } catch {
      // Storage full or blocked: the record is sent once, not kept.
    }
  };
  const same = (a: ConsentRecordRequest, b: ConsentRecordRequest) =>
    JSON.stringify(a) === JSON.stringify(b);
  const forget = (record: ConsentRecordRequest): void => {
    write(read().filter((kept) => !same(kept, record)));
  };

  /** Resolves true once the record is on its way (or delivered). */
  const send = async (record: ConsentRecordRequest): Promise<boolean> => {
    const body = consentRecordBody(record);
    try {
      // A form body: no CORS preflight, and the browser sends it even as
      // the page unloads.
      if (options.sendBeacon?.(url, body)) return true;
    } catch {
      // Fall back to fetch below.
    }
    try {
      const response = await options.fetch?.(url, {
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
  };

  const sendAll = (records: readonly ConsentRecordRequest[]): void => {
    for (const record of records) {
      void send(record).then((sent) => {
        if (sent) forget(record);
      });
    }
  };

  return {
    record(record) {
      write([...read(), record].slice(-PENDING_RECORDS_MAX));
      sendAll([record]);
    },
    sendPending() {
      sendAll(read());
    },
  };
}
