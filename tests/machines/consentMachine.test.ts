import { describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import {
  consentMachine,
  type ConsentChoice,
  type ConsentInput,
  type ConsentSignal,
  type RecordedChoice,
  type StoredChoice,
} from '../../machines/consentMachine';

/**
 * The real machine with its effects recorded, in order; the revisions
 * default to a choice stored under the current policy (1).
 */
function startConsent(
  given: Omit<ConsentInput, 'storedRevision' | 'revision'> &
    Partial<ConsentInput>,
) {
  const input: ConsentInput = { storedRevision: 1, revision: 1, ...given };
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

describe('consentMachine: where a visitor starts (R4.11, D31)', () => {
  it.each([
    ['google', true],
    ['microsoft', true],
    ['Google', true],
    ['newsletter', false],
    ['bing', false],
    [undefined, false],
  ])('no stored choice, utm_source %s: modal open %s', (utmSource, open) => {
    const { view, effects } = startConsent({
      storedChoice: 'unset',
      utmSource,
    });
    expect(view()).toEqual({ choice: 'unset', open, settingsLink: false });
    expect(effects).toEqual([]);
  });

  it.each([
    ['accepted', ['load tag']],
    ['rejected', ['remove tag', 'delete tag cookies']],
  ] as const)(
    'a stored %s choice applies itself and keeps the modal closed, even from google',
    (storedChoice, entryEffects) => {
      const { view, effects } = startConsent({
        storedChoice,
        utmSource: 'google',
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

describe('consentMachine: a policy revision (issue 23, D67)', () => {
  it.each([
    ['accepted', 1, 2, undefined],
    ['rejected', 1, 2, undefined],
    ['accepted', undefined, 1, undefined],
    ['rejected', undefined, 1, 'newsletter'],
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

  it.each([
    ['accepted', 2, 2, ['load tag']],
    ['accepted', 3, 2, ['load tag']],
    ['rejected', 5, 2, ['remove tag', 'delete tag cookies']],
  ] as const)(
    'a %s choice stored under revision %d, now %d, still stands',
    (storedChoice, storedRevision, revision, entryEffects) => {
      const { view, effects } = startConsent({
        storedChoice,
        storedRevision,
        revision,
        utmSource: undefined,
      });
      expect(view()).toEqual({
        choice: storedChoice,
        open: false,
        settingsLink: true,
      });
      expect(effects).toEqual(entryEffects);
    },
  );

  it('an outdated accept chosen again is stored, signalled and loads the tag', () => {
    const { actor, view, effects } = startConsent({
      storedChoice: 'accepted',
      storedRevision: 1,
      revision: 2,
      utmSource: undefined,
    });
    actor.send({ type: 'consent.accept' });
    expect(view()).toEqual({
      choice: 'accepted',
      open: false,
      settingsLink: true,
    });
    expect(effects).toEqual([
      'store accepted',
      'signal granted',
      'record accepted from modal',
      'load tag',
    ]);
  });

  it('no stored choice and no revision: as before, nothing asked without a campaign', () => {
    const { view } = startConsent({
      storedChoice: 'unset',
      storedRevision: undefined,
      revision: 3,
      utmSource: undefined,
    });
    expect(view()).toEqual({
      choice: 'unset',
      open: false,
      settingsLink: false,
    });
  });
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
    // D66: the ad networks hear "granted" before the tag loads.
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
    // D66: "denied" before the tag is removed.
    expect(effects).toEqual([
      'store rejected',
      'signal denied',
      'record rejected from modal',
      'remove tag',
      'delete tag cookies',
    ]);
  });

  it('closing without a choice keeps it unset and loads nothing', () => {
    const { actor, view, effects } = startConsent({
      storedChoice: 'unset',
      utmSource: 'google',
    });
    actor.send({ type: 'modal.close' });
    expect(view()).toEqual({
      choice: 'unset',
      open: false,
      settingsLink: false,
    });
    expect(effects).toEqual([]);
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
