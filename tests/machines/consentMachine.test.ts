/**
 * The consent machine's effects, in order (ADR-0066: the ad networks hear a
 * choice before the tag loads or goes; ADR-0068: each choice recorded with
 * where it was made), and the starts and events the model-based tests
 * (tests/machines/model.test.ts) do not walk: other `utm_source` values
 * and revisions, events the machine ignores, and the browser's Global
 * Privacy Control signal (ADR-0073) from other starts.
 */
import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import {
  consentMachine,
  type ConsentChoice,
  type ConsentInput,
  type ConsentSignal,
  type RecordedChoice,
  type StoredChoice,
  selectSignalHonoured,
} from '../../machines/consentMachine';

/**
 * The real machine with its effects recorded, in order; the revisions
 * default to a choice stored under the current policy (1), and the browser
 * sends no Global Privacy Control unless `gpcSignal` says so.
 */
function startConsent(
  given: Pick<ConsentInput, 'storedChoice' | 'utmSource'> &
    Partial<ConsentInput>,
) {
  const input: ConsentInput = {
    storedRevision: 1,
    revision: 1,
    gpcSignal: false,
    ...given,
  };
  const effects: string[] = [];
  const actor = createActor(
    consentMachine.provide({
      actions: {
        storeChoice: (_, choice: StoredChoice) => {
          effects.push(`store ${choice}`);
        },
        signalConsent: (_, signal: ConsentSignal) => {
          effects.push(`signal ${signal}`);
        },
        recordChoice: (_, { choice, source }: RecordedChoice) => {
          effects.push(`record ${choice} from ${source}`);
        },
        loadTag: () => {
          effects.push('load tag');
        },
        removeTag: () => {
          effects.push('remove tag');
        },
        deleteTagCookies: () => {
          effects.push('delete tag cookies');
        },
      },
    }),
    { input },
  ).start();
  const view = () => {
    const snapshot = actor.getSnapshot();
    return {
      choice: (['accepted', 'rejected', 'unset'] as const).find((choice) =>
        snapshot.matches(choice),
      ),
      open: snapshot.hasTag('modal'),
      settingsLink: snapshot.can({ type: 'settings.open' }),
    };
  };
  return { actor, effects, view };
}

describe('consentMachine: where a visitor starts (R4.11, ADR-0031)', () => {
  // The model tests start from google, microsoft, newsletter and none.
  it.each([
    ['Google', true],
    ['bing', false],
  ])('no stored choice, utm_source %s: modal open %s', (utmSource, open) => {
    const { view, effects } = startConsent({
      storedChoice: 'unset',
      utmSource,
    });
    expect(view()).toEqual({ choice: 'unset', open, settingsLink: false });
    expect(effects).toEqual([]);
  });

  // ADR-0067: a revision the same as the policy's or later still stands; a
  // choice stored without one was made under revision 1, the first policy.
  it.each([
    ['accepted', 1, 1, 'google', ['load tag']],
    ['rejected', 1, 1, 'google', ['remove tag', 'delete tag cookies']],
    ['accepted', 3, 2, undefined, ['load tag']],
    ['rejected', 5, 2, undefined, ['remove tag', 'delete tag cookies']],
    ['accepted', undefined, 1, undefined, ['load tag']],
    ['rejected', undefined, 1, 'google', ['remove tag', 'delete tag cookies']],
  ] as const)(
    'a %s choice stored under revision %s, now %d, from %s: it applies itself, the modal stays closed',
    (storedChoice, storedRevision, revision, utmSource, entryEffects) => {
      const { view, effects } = startConsent({
        storedChoice,
        storedRevision,
        revision,
        utmSource,
      });
      expect(view()).toEqual({
        choice: storedChoice,
        open: false,
        settingsLink: true,
      });
      expect(effects).toEqual(entryEffects);
    },
  );
});

describe('consentMachine: a policy revision (issue 23, ADR-0067)', () => {
  // No revision stored is revision 1: older than 2. A revision cookie that
  // holds no positive integer reads as 0 (src/platform/cookies.ts): older than any.
  it.each([
    ['rejected', 1, 2, undefined],
    ['accepted', undefined, 2, undefined],
    ['rejected', undefined, 2, 'google'],
    ['accepted', 0, 1, undefined],
    ['accepted', 4, 7, 'google'],
  ] as const)(
    'a %s choice stored under revision %s, now %d: no choice, the modal asks again, nothing loads',
    (storedChoice, storedRevision, revision, utmSource) => {
      const { view, effects } = startConsent({
        storedChoice,
        storedRevision,
        revision,
        utmSource,
      });
      expect(view()).toEqual({
        choice: 'unset',
        open: true,
        settingsLink: false,
      });
      expect(effects).toEqual([]);
    },
  );
});

describe('consentMachine: choosing', () => {
  it('accept stores 1, loads the tag once, closes the modal', () => {
    const { actor, view, effects } = startConsent({
      storedChoice: 'unset',
      utmSource: 'google',
    });
    actor.send({ type: 'consent.accept' });
    expect(view()).toEqual({
      choice: 'accepted',
      open: false,
      settingsLink: true,
    });
    // ADR-0066: the ad networks hear "granted" before the tag loads.
    expect(effects).toEqual([
      'store accepted',
      'signal granted',
      'record accepted from modal',
      'load tag',
    ]);
  });

  it('reject stores 0, removes the tag, closes the modal', () => {
    const { actor, view, effects } = startConsent({
      storedChoice: 'unset',
      utmSource: 'microsoft',
    });
    actor.send({ type: 'consent.reject' });
    expect(view()).toEqual({
      choice: 'rejected',
      open: false,
      settingsLink: true,
    });
    // ADR-0066: "denied" before the tag is removed.
    expect(effects).toEqual([
      'store rejected',
      'signal denied',
      'record rejected from modal',
      'remove tag',
      'delete tag cookies',
    ]);
  });

  it('with the modal closed, accept and reject are not events it takes', () => {
    const { actor, view, effects } = startConsent({
      storedChoice: 'unset',
      utmSource: undefined,
    });
    actor.send({ type: 'consent.accept' });
    actor.send({ type: 'consent.reject' });
    actor.send({ type: 'settings.open' });
    expect(view()).toEqual({
      choice: 'unset',
      open: false,
      settingsLink: false,
    });
    expect(effects).toEqual([]);
  });
});

describe('consentMachine: the settings link reopens the modal', () => {
  it.each(['accepted', 'rejected'] as const)(
    'closing it keeps the %s choice',
    (storedChoice) => {
      const { actor, view, effects } = startConsent({
        storedChoice,
        utmSource: undefined,
      });
      const onStart = [...effects];
      actor.send({ type: 'settings.open' });
      expect(view()).toEqual({
        choice: storedChoice,
        open: true,
        settingsLink: false,
      });
      actor.send({ type: 'modal.close' });
      expect(view()).toEqual({
        choice: storedChoice,
        open: false,
        settingsLink: true,
      });
      // Opening and closing the settings stores nothing and reruns nothing.
      expect(effects).toEqual(onStart);
    },
  );

  it.each([
    [
      'accepted',
      'consent.reject',
      'rejected',
      [
        'load tag',
        'store rejected',
        'signal denied',
        'record rejected from settings',
        'remove tag',
        'delete tag cookies',
      ],
    ],
    [
      'rejected',
      'consent.accept',
      'accepted',
      [
        'remove tag',
        'delete tag cookies',
        'store accepted',
        'signal granted',
        'record accepted from settings',
        'load tag',
      ],
    ],
    [
      'accepted',
      'consent.accept',
      'accepted',
      [
        'load tag',
        'store accepted',
        'signal granted',
        'record accepted from settings',
      ],
    ],
    [
      'rejected',
      'consent.reject',
      'rejected',
      [
        'remove tag',
        'delete tag cookies',
        'store rejected',
        'signal denied',
        'record rejected from settings',
      ],
    ],
  ] as const)(
    '%s, then %s: %s',
    (storedChoice, type, choice: ConsentChoice, expected) => {
      const { actor, view, effects } = startConsent({
        storedChoice,
        utmSource: undefined,
      });
      actor.send({ type: 'settings.open' });
      actor.send({ type });
      expect(view()).toEqual({ choice, open: false, settingsLink: true });
      // Confirming the same choice stores it again but never re-runs the tag.
      expect(effects).toEqual(expected);
    },
  );
});

describe('consentMachine: Global Privacy Control (issue 23, ADR-0073)', () => {
  const rejectionOnEntry = ['remove tag', 'delete tag cookies'];
  /** A choice stands: the settings link shows while the modal is closed. */
  const standing = (
    choice: ConsentChoice,
    open: boolean,
    signalHonoured: boolean,
  ) => ({ choice, open, settingsLink: !open, signalHonoured });

  /**
   * The machine with the browser's signal, and its view with whether the
   * choice that stands is the signal's.
   */
  function startWithSignal(
    given: Pick<ConsentInput, 'storedChoice' | 'utmSource'> &
      Partial<ConsentInput>,
  ) {
    const started = startConsent({ ...given, gpcSignal: true });
    return {
      ...started,
      seen: () => ({
        ...started.view(),
        signalHonoured: selectSignalHonoured(started.actor.getSnapshot()),
      }),
    };
  }

  // The model tests start with the signal from no choice (google, none)
  // and from an accept under an older revision.
  it.each([
    ['unset', undefined, 'microsoft'],
    ['unset', undefined, 'newsletter'],
    // Outdated (ADR-0067): the signal answers instead of asking again.
    ['accepted', 1, 'google'],
    ['rejected', undefined, undefined],
  ] as const)(
    'GPC, stored %s under revision %s (now 2), utm_source %s: rejected by the signal, modal closed, settings link shown; nothing stored, signalled or recorded',
    (storedChoice, storedRevision, utmSource) => {
      const { seen, effects } = startWithSignal({
        storedChoice,
        storedRevision,
        revision: 2,
        utmSource,
      });
      expect(seen()).toEqual(standing('rejected', false, true));
      // The tag is kept out as for any rejection; no cookie is written for
      // a choice the visitor did not make.
      expect(effects).toEqual(rejectionOnEntry);
    },
  );

  it('the settings link opens the modal on the signal’s rejection; closing it keeps that rejection and stores nothing', () => {
    const { actor, seen, effects } = startWithSignal({
      storedChoice: 'unset',
      utmSource: undefined,
    });
    actor.send({ type: 'settings.open' });
    expect(seen()).toEqual(standing('rejected', true, true));
    actor.send({ type: 'modal.close' });
    expect(seen()).toEqual(standing('rejected', false, true));
    expect(effects).toEqual(rejectionOnEntry);
  });

  it.each([
    [
      'an accept wins over the signal: stored, signalled, recorded, and the tag loads',
      'consent.accept',
      'accepted',
      [
        'store accepted',
        'signal granted',
        'record accepted from settings',
        'load tag',
      ],
    ],
    [
      'a reject on the signal’s rejection is the visitor’s own: stored, signalled and recorded',
      'consent.reject',
      'rejected',
      ['store rejected', 'signal denied', 'record rejected from settings'],
    ],
  ] as const)('%s', (_title, type, choice, choiceEffects) => {
    const { actor, seen, effects } = startWithSignal({
      storedChoice: 'unset',
      utmSource: 'google',
    });
    actor.send({ type: 'settings.open' });
    actor.send({ type });
    expect(seen()).toEqual(standing(choice, false, false));
    // The choice that stands is now the visitor's own.
    expect(actor.getSnapshot().context.choiceSource).toBe('visitor');
    expect(effects).toEqual([...rejectionOnEntry, ...choiceEffects]);
  });

  it('a reject after an accept over the signal is the visitor’s, not the signal’s', () => {
    const { actor, seen } = startWithSignal({
      storedChoice: 'unset',
      utmSource: undefined,
    });
    for (const type of [
      'settings.open',
      'consent.accept',
      'settings.open',
      'consent.reject',
    ] as const) {
      actor.send({ type });
    }
    expect(seen()).toEqual(standing('rejected', false, false));
  });

  it('without the signal no rejection is the signal’s', () => {
    const { actor } = startConsent({
      storedChoice: 'rejected',
      utmSource: undefined,
    });
    expect(selectSignalHonoured(actor.getSnapshot())).toBe(false);
  });
});
