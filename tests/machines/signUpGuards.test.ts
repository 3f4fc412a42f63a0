/**
 * The sign-up machine's guard on leaving `failure` (ADR-0022): only typing in
 * the name ends a refused-name failure; typing anywhere else, or typing in the
 * name after any other failure, leaves the failure shown until the next
 * submit (R4.4). Each case changes one of the guard's two conditions. And
 * how a rejection reads where it is logged (ADR-0037).
 */
import { describe, expect, it } from 'vitest';
import { SignUpRejection, type Failure } from '../../contract/signUp';
import { messages } from '../../common/validation';
import { startSignUp } from './support/signUpHarness';

async function failWith(failure: Failure) {
  const harness = startSignUp();
  harness.fillValidForm();
  await harness.submit();
  harness.requests[0]?.answer.reject(new SignUpRejection(failure));
  await harness.settle();
  expect(harness.actor.getSnapshot().value).toEqual({ failure: failure.kind });
  return harness;
}

describe('signUpMachine: what ends a failure (ADR-0022)', () => {
  it.each(['email', 'url'] as const)(
    'typing in the %s keeps a refused name refused',
    async (field) => {
      const { actor } = await failWith({ kind: 'invalidName' });
      actor.send({ type: 'field.change', field, value: 'x' });
      const snapshot = actor.getSnapshot();
      expect(snapshot.value).toEqual({ failure: 'invalidName' });
      expect(snapshot.context.errors).toEqual({ name: messages.nameRefused });
      expect(snapshot.context.values[field]).toBe('x');
    },
  );

  it.each<Failure>([
    { kind: 'rateLimited' },
    { kind: 'emailInUse' },
    { kind: 'general', reason: 'refused' },
    { kind: 'general', reason: 'timeout' },
  ])('typing in the name keeps the %o message shown', async (failure) => {
    const { actor } = await failWith(failure);
    actor.send({ type: 'field.change', field: 'name', value: 'Grace' });
    const snapshot = actor.getSnapshot();
    expect(snapshot.value).toEqual({ failure: failure.kind });
    expect(snapshot.context.values.name).toBe('Grace');
  });
});

describe('SignUpRejection', () => {
  it('reads as its class and failure kind where it is logged or reported (ADR-0037)', () => {
    const error = new SignUpRejection({ kind: 'rateLimited' });
    expect(error).toBeInstanceOf(Error);
    expect(String(error)).toBe('SignUpRejection: sign-up failed: rateLimited');
  });
});
