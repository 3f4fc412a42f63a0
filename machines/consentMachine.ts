/**
 * The cookie-consent machine: R4.7 to R4.11 of docs/requirements.md. What
 * it does, state by state, is told once, beside its diagram in the README
 * ("The consent machine"); how the page wires its effects, in
 * docs/architecture.md ("The consent machine").
 *
 * Effects reach it only as the named actions `storeChoice`,
 * `signalConsent`, `recordChoice`, `loadTag`, `removeTag` and
 * `deleteTagCookies`, which the page provides and tests replace with
 * `machine.provide(...)`: no React or DOM import here.
 */
import { assign, setup, type SnapshotFrom } from 'xstate';
import type {
  ConsentRecordChoice,
  ConsentSource,
} from '../contract/consentRecord';
import { choiceIsCurrent } from './consentRevision';

export type ConsentChoice = 'unset' | ConsentRecordChoice;
export type StoredChoice = ConsentRecordChoice;
/** The ad networks' consent value for a choice (ADR-0066). */
export type ConsentSignal = 'granted' | 'denied';
/** Where a choice the visitor made is recorded: the modal or its settings link. */
export type RecordedSource = Exclude<ConsentSource, 'gpc'>;
/**
 * Who made the choice that stands: the visitor (on this page or an earlier
 * visit), or the browser's Global Privacy Control signal (ADR-0073), which
 * rejects until the visitor chooses.
 */
export type ChoiceSource = 'visitor' | 'gpc';
/** What `recordChoice` sends as proof of a choice (ADR-0068). */
export interface RecordedChoice {
  choice: StoredChoice;
  source: RecordedSource;
}

/** R9.6: the marketing sources that open the modal on arrival. */
export const AUTO_OPEN_SOURCES: readonly string[] = ['google', 'microsoft'];

export interface ConsentInput {
  /** From `{product}_COOKIE_CONSENT`: '1' accepted, '0' rejected, else unset. */
  storedChoice: ConsentChoice;
  /**
   * From `{product}_CONSENT_REVISION`: the policy revision the stored
   * choice was made under; undefined when there is none (a choice stored
   * before revisions were, under revision 1: `FIRST_REVISION` in
   * ./consentRevision.ts), 0 when it holds
   * anything but a positive integer (older than every revision).
   */
  storedRevision: number | undefined;
  /** `CONSENT_REVISION`: the policy's revision now (ADR-0067). */
  revision: number;
  /** `utm_source` of the address, if any. */
  utmSource: string | undefined;
  /**
   * The browser sends Global Privacy Control: `navigator.globalPrivacyControl`
   * is true, or the request carried `Sec-GPC: 1` (ADR-0073, ADR-0074).
   */
  gpcSignal: boolean;
}

export interface ConsentContext extends ConsentInput {
  /**
   * `gpc` while the rejection that stands is the browser's signal's (ADR-0073),
   * from the start until the visitor chooses; `visitor` once they have;
   * absent before that (a choice stored earlier, or none).
   */
  choiceSource?: ChoiceSource;
}

export type ConsentEvent =
  | { type: 'consent.accept' }
  | { type: 'consent.reject' }
  | { type: 'settings.open' }
  | { type: 'modal.close' };

/**
 * The effects of a choice: it is stored, and the ad networks' consent
 * signals are updated (ADR-0066): granted before the tag loads (the target's
 * entry), denied before it is removed.
 */
function choiceActions(choice: StoredChoice, source: RecordedSource) {
  return [
    // ADR-0073: an explicit choice wins over the browser's signal.
    { type: 'noteChoiceSource', params: 'visitor' },
    { type: 'storeChoice', params: choice },
    {
      type: 'signalConsent',
      params: choice === 'accepted' ? 'granted' : 'denied',
    },
    // ADR-0068: the proof of the choice, sent to the service.
    { type: 'recordChoice', params: { choice, source } },
  ] as const;
}

/**
 * Accept and reject, from an open modal: `modal` when it opened by itself,
 * `settings` when the settings link opened it.
 */
function choosing(source: RecordedSource) {
  return {
    'consent.accept': {
      target: '#consent.accepted',
      actions: choiceActions('accepted', source),
    },
    'consent.reject': {
      target: '#consent.rejected',
      actions: choiceActions('rejected', source),
    },
    'modal.close': { target: 'closed' },
  } as const;
}

/**
 * A choice exists: the settings link reopens the modal showing it.
 * Confirming the same choice stores it again and closes the modal without
 * leaving the choice's state, so its entry action (the tag) does not rerun.
 */
function chosen(choice: StoredChoice) {
  const confirm = choice === 'accepted' ? 'consent.accept' : 'consent.reject';
  return {
    initial: 'closed',
    states: {
      closed: { on: { 'settings.open': { target: 'open' } } },
      open: {
        tags: 'modal',
        on: {
          ...choosing('settings'),
          [confirm]: {
            target: 'closed',
            actions: choiceActions(choice, 'settings'),
          },
        },
      },
    },
  } as const;
}

export const consentMachine = setup({
  types: {
    context: {} as ConsentContext,
    events: {} as ConsentEvent,
    input: {} as ConsentInput,
    tags: {} as 'modal' | 'accepted' | 'rejected',
  },
  actions: {
    noteChoiceSource: assign((_, choiceSource: ChoiceSource) => ({
      choiceSource,
    })),
    // Implemented by the page with the cookie module (src/platform/cookies.ts).
    storeChoice: (_, _choice: StoredChoice) => {},
    // Implemented by the page (src/consent/consentSignals.ts): Consent Mode v2 and
    // UET `update` commands.
    signalConsent: (_, _signal: ConsentSignal) => {},
    // Implemented by the page (src/consent/consentRecorder.ts): never blocks.
    recordChoice: (_, _recorded: RecordedChoice) => {},
    // Implemented by the page (src/consent/trackingTag.ts): idempotent.
    loadTag: () => {},
    // Implemented by the page (src/consent/trackingTag.ts).
    removeTag: () => {},
    // Implemented by the page with the cookie module (src/platform/cookies.ts).
    deleteTagCookies: () => {},
  },
  guards: {
    storedAccepted: ({ context }) =>
      context.storedChoice === 'accepted' && choiceIsCurrent(context),
    storedRejected: ({ context }) =>
      context.storedChoice === 'rejected' && choiceIsCurrent(context),
    // ADR-0073: taken after the current stored choices, which win over it.
    honoursGpc: ({ context }) => context.gpcSignal,
    // A choice made under an older policy: asked again (ADR-0067).
    storedOutdated: ({ context }) =>
      context.storedChoice !== 'unset' && !choiceIsCurrent(context),
    cameFromAdvertising: ({ context }) =>
      context.utmSource !== undefined &&
      AUTO_OPEN_SOURCES.includes(context.utmSource.toLowerCase()),
  },
}).createMachine({
  id: 'consent',
  context: ({ input }) => input,
  initial: 'starting',
  states: {
    starting: {
      always: [
        { guard: 'storedAccepted', target: 'accepted' },
        { guard: 'storedRejected', target: 'rejected' },
        // ADR-0073: the browser's signal rejects, outdated choice or campaign
        // alike; no choice of the visitor's, so nothing is stored.
        {
          guard: 'honoursGpc',
          target: 'rejected',
          actions: { type: 'noteChoiceSource', params: 'gpc' },
        },
        { guard: 'storedOutdated', target: 'unset.open' },
        { guard: 'cameFromAdvertising', target: 'unset.open' },
        { target: 'unset' },
      ],
    },
    unset: {
      initial: 'closed',
      states: {
        closed: {},
        open: { tags: 'modal', on: choosing('modal') },
      },
    },
    accepted: { tags: 'accepted', entry: 'loadTag', ...chosen('accepted') },
    rejected: {
      tags: 'rejected',
      entry: ['removeTag', 'deleteTagCookies'],
      ...chosen('rejected'),
    },
  },
});

type ConsentSnapshot = SnapshotFrom<typeof consentMachine>;

/** The visitor's choice now (R4.7), from the state's tags. */
export function selectChoice(snapshot: ConsentSnapshot): ConsentChoice {
  if (snapshot.hasTag('accepted')) return 'accepted';
  return snapshot.hasTag('rejected') ? 'rejected' : 'unset';
}

/** Whether the consent modal is open. */
export function selectModalOpen(snapshot: ConsentSnapshot): boolean {
  return snapshot.hasTag('modal');
}

/**
 * Whether the rejection that stands is the browser's Global Privacy Control
 * signal's, not the visitor's (ADR-0073): the modal says it is honoured.
 */
export function selectSignalHonoured(snapshot: ConsentSnapshot): boolean {
  return snapshot.context.choiceSource === 'gpc';
}

/** Whether the settings link shows: only once a choice exists (R4.10). */
export function selectSettingsShown(snapshot: ConsentSnapshot): boolean {
  return selectChoice(snapshot) !== 'unset';
}
