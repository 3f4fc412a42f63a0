// @vitest-environment jsdom
/**
 * The draft kept in step with the sign-up machine (src/signUp/views/draftSync.ts,
 * ADR-0055), from issue 22: the values are written as they change, never while
 * the request runs, and the draft is deleted on success. The machine is
 * the real one with the form's real rules; only the network is replaced.
 */
import { act, renderHook } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { createActor, fromPromise } from 'xstate';
import { signUpMachine } from '../../machines/signUpMachine';
import type { Session, SignUpRequest } from '../../contract/signUp';
import { verdictOf } from '../../common/signUpRules';
import type { DraftPlace } from '../../src/inputCapture/draft';
import { useDraftSync } from '../../src/signUp/views/draftSync';

/** A storage that records what is done to it. */
function recordingPlace() {
  const calls: string[] = [];
  const items = new Map<string, string>();
  const storage = {
    getItem: (key: string) => items.get(key) ?? null,
    setItem: (key: string, value: string) => {
      calls.push(`set ${value}`);
      items.set(key, value);
    },
    removeItem: (key: string) => {
      calls.push('remove');
      items.delete(key);
    },
  } as unknown as Storage;
  const place: DraftPlace = {
    storage: () => storage,
    key: 'Vigil_SIGNUP_DRAFT',
  };
  return { place, calls, items };
}

function startForm() {
  let answer: (session: Session) => void = () => {};
  const machine = signUpMachine.provide({
    actors: {
      checkForm: fromPromise(async ({ input }) => verdictOf(input)),
      submitSignUp: fromPromise<Session, SignUpRequest>(
        () =>
          new Promise<Session>((resolve) => {
            answer = resolve;
          }),
      ),
    },
  });
  const actor = createActor(machine, {
    input: { values: { name: 'Ada Lovelace' } },
  }).start();
  return { actor, answer: (session: Session) => answer(session) };
}

const draftOf = (call: string | undefined) =>
  JSON.parse(call?.replace(/^set /, '') ?? 'null') as unknown;

describe('useDraftSync', () => {
  it('writes the values at once and as they change', () => {
    const { place, calls } = recordingPlace();
    const { actor } = startForm();
    renderHook(() => useDraftSync(actor, place));
    expect(draftOf(calls.at(-1))).toEqual({
      name: 'Ada Lovelace',
      email: '',
      url: '',
      newsletter: false,
      tos: false,
    });
    act(() => {
      actor.send({
        type: 'field.change',
        field: 'email',
        value: 'ada@example.com',
      });
      actor.send({ type: 'checkbox.change', field: 'tos', checked: true });
    });
    expect(draftOf(calls.at(-1))).toEqual({
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      url: '',
      newsletter: false,
      tos: true,
    });
  });

  it('writes nothing while the request runs, and deletes the draft on success', async () => {
    const { place, calls, items } = recordingPlace();
    const { actor, answer } = startForm();
    renderHook(() => useDraftSync(actor, place));
    act(() => {
      actor.send({
        type: 'field.change',
        field: 'email',
        value: 'ada@example.com',
      });
      actor.send({ type: 'field.change', field: 'url', value: 'ada.example' });
      actor.send({ type: 'checkbox.change', field: 'tos', checked: true });
      actor.send({ type: 'captcha.solve', token: 'token' });
    });
    const before = calls.length;
    await act(async () => {
      actor.send({ type: 'submit' });
      await new Promise((resolve) => setTimeout(resolve, 0));
    });
    expect(actor.getSnapshot().value).toBe('submitting');
    // A captcha expiring meanwhile changes the context, not the values.
    act(() => actor.send({ type: 'captcha.expire' }));
    expect(calls.slice(before)).toEqual([]);
    await act(async () => {
      answer({ token: 'login-token', sid: 'sid' });
      await Promise.resolve();
    });
    expect(actor.getSnapshot().hasTag('signedUp')).toBe(true);
    expect(calls.slice(before)).toEqual(['remove']);
    expect(items.size).toBe(0);
  });

  it('does nothing without a place', () => {
    const { actor } = startForm();
    expect(() =>
      renderHook(() => useDraftSync(actor, undefined)),
    ).not.toThrow();
  });
});
