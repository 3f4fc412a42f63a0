/**
 * Keeps and sends the proof of each consent choice (`POST /2/consent/`,
 * contract/consentRecord.ts; ADR-0068) without ever holding
 * the visitor up: the record is kept in the browser's `localStorage` first,
 * then sent by src/consent/consentSender.ts, a chunk fetched when there is
 * something to send, and forgotten once the service has stored it (or
 * refused it for good). A record the service did not store (no network, a
 * rate limit, a server error), or whose sender could not be fetched
 * (offline), is sent again on the next page load. Nothing here throws.
 */
import type { ConsentRecordRequest } from '../../contract/consentRecord';
import { chunkLoader } from '../platform/chunkLoader';
import type * as Sender from './consentSender';

/** Records kept for a later try at most: the newest ones. */
export const PENDING_RECORDS_MAX = 10;

export interface ConsentRecorderOptions extends Sender.ConsentNetwork {
  /** Where records wait (`localStorage`); its getter may throw. */
  storage?: () => Storage;
  /** Its key: `{product}_CONSENT_PENDING`. */
  pendingKey: string;
  /** Fetches the sender; default its chunk. */
  loadSender?: () => Promise<typeof Sender>;
}

export interface ConsentRecorder {
  /** Keeps the record, then sends it. */
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
  const {
    pendingKey,
    loadSender = chunkLoader(() => import('./consentSender')),
  } = options;
  const read = (): ConsentRecordRequest[] => {
    try {
      const json = options.storage?.().getItem(pendingKey);
      const list: unknown = json ? JSON.parse(json) : [];
      return Array.isArray(list) ? list.filter(isRecord) : [];
    } catch {
      return [];
    }
  };
  const write = (records: ConsentRecordRequest[]): void => {
    try {
      const storage = options.storage?.();
      if (records.length === 0) storage?.removeItem(pendingKey);
      else storage?.setItem(pendingKey, JSON.stringify(records));
    } catch {
      // Storage full or blocked: the record is sent once, not kept.
    }
  };
  const same = (a: ConsentRecordRequest, b: ConsentRecordRequest) =>
    JSON.stringify(a) === JSON.stringify(b);
  const send = (records: ConsentRecordRequest[]): void => {
    if (records.length === 0) return;
    loadSender().then(
      ({ sendConsentRecords }) =>
        sendConsentRecords(options, records, (done) =>
          write(read().filter((kept) => !same(kept, done))),
        ),
      () => {
        // The sender could not be fetched: what is kept goes next load.
      },
    );
  };
  return {
    record(record) {
      write([...read(), record].slice(-PENDING_RECORDS_MAX));
      send([record]);
    },
    sendPending() {
      send(read());
    },
  };
}
