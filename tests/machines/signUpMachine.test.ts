/**
 * The sign-up machine's behaviour that the model-based tests
 * (tests/machines/model.test.ts, judged by harness/model/reference.ts)
 * do not check: the prefill, the values' limits, the request it sends, the
 * events it ignores while sending, which failure an error stands for and
 * its report, and a second fetch of the rules after the first failed.
 */
import { describe, expect, it } from 'vitest';
import { SignUpRejection } from '../../contract/signUp';
import { messages } from '../../common/validation';
import { assign, createActor, fromPromise } from 'xstate';
import { verdictOf } from '../../common/signUpRules';
import { checkHostName } from '../../common/domainName';
import { signUpMachine } from '../../machines/signUpMachine';
import { selectFormLevelFailure } from '../../machines/signUpSelectors';
import { fillValidForm, startSignUp } from './support/signUpHarness';

describe('signUpMachine: editing (R4.5, R4.6)', () => {
  it('starts idle with the prefill from its input', () => {
    const { actor } = startSignUp({
      values: { name: 'Ada', email: 'ada@example.com' },
      utmCampaign: 'spring',
    });
    const snapshot = actor.getSnapshot();
    expect(snapshot.value).toBe('idle');
    expect(snapshot.context.values).toEqual({
      name: 'Ada',
      email: 'ada@example.com',
      url: '',
      newsletter: false,
      tos: false,
    });
    expect(snapshot.context.errors).toEqual({});
  });

  it.each([
    ['name', { type: 'field.change', field: 'name', value: 'A' }],
    ['email', { type: 'field.change', field: 'email', value: 'a' }],
    ['url', { type: 'field.change', field: 'url', value: 'e' }],
    ['tos', { type: 'checkbox.change', field: 'tos', checked: true }],
    ['captcha', { type: 'captcha.solve', token: 't' }],
  ] as const)('typing in %s clears that error only', async (field, event) => {
    const harness = startSignUp();
    await harness.submit();
    const { actor } = harness;
    const before = actor.getSnapshot().context.errors;
    actor.send(event);
    const { [field]: cleared, ...others } = before;
    expect(cleared).toBeDefined();
    expect(actor.getSnapshot().context.errors).toEqual(others);
  });

  it('values over their limits (ADR-0044) show each field’s message, send nothing and stay as typed', async () => {
    const harness = startSignUp();
    harness.fillValidForm();
    const typed = {
      name: 'x'.repeat(201),
      email: `${'a'.repeat(243)}@example.com`,
      url: `example.com/${'p'.repeat(2029)}`,
    };
    for (const field of ['name', 'email', 'url'] as const) {
      harness.actor.send({ type: 'field.change', field, value: typed[field] });
    }
    await harness.submit();
    const snapshot = harness.actor.getSnapshot();
    expect(snapshot.value).toBe('idle');
    expect(snapshot.context.errors).toEqual({
      name: 'Enter a name of 200 characters or fewer',
      email: 'Enter an email address of 254 characters or fewer',
      url: 'Enter a website address of 2,048 characters or fewer',
    });
    expect(snapshot.context.values).toEqual({
      ...typed,
      newsletter: false,
      tos: true,
    });
    expect(harness.requests).toHaveLength(0);
  });

  it('the newsletter choice clears no error and is optional', async () => {
    const harness = startSignUp();
    await harness.submit();
    const before = harness.actor.getSnapshot().context.errors;
    harness.actor.send({
      type: 'checkbox.change',
      field: 'newsletter',
      checked: true,
    });
    expect(harness.actor.getSnapshot().context.errors).toEqual(before);
    expect(harness.actor.getSnapshot().context.values.newsletter).toBe(true);
  });

  it('an expired captcha blocks the request with the captcha notice', async () => {
    const harness = startSignUp();
    harness.fillValidForm();
    harness.actor.send({ type: 'captcha.expire' });
    await harness.submit();
    expect(harness.actor.getSnapshot().context.errors).toEqual({
      captcha: messages.captchaRequired,
    });
    expect(harness.requests).toHaveLength(0);
  });
});

describe('signUpMachine: submitting (R3.1 to R3.4, R4.1 to R4.3)', () => {
  it('sends the R3.1 to R3.4 payload: trimmed, URL with protocol, campaign', async () => {
    const harness = startSignUp({ utmCampaign: 'spring' });
    harness.fillValidForm('tok-1');
    harness.actor.send({
      type: 'checkbox.change',
      field: 'newsletter',
      checked: true,
    });
    await harness.submit();
    expect(harness.actor.getSnapshot().value).toBe('submitting');
    expect(harness.requests.map((r) => r.request)).toEqual([
      {
        name: 'Ada Lovelace',
        email: 'ada@example.com',
        captchaToken: 'tok-1',
        newsletter: true,
        url: 'https://example.com/status',
        utmCampaign: 'spring',
      },
    ]);
  });

  it('leaves out utm_campaign when there is none', async () => {
    const harness = startSignUp();
    harness.fillValidForm();
    await harness.submit();
    expect(harness.requests[0]?.request).not.toHaveProperty('utmCampaign');
  });

  it('locks the form while the request runs and ignores edits and submits', async () => {
    const harness = startSignUp();
    harness.fillValidForm();
    await harness.submit();
    const locked = harness.actor.getSnapshot();
    expect(locked.hasTag('locked')).toBe(true);
    await harness.submit();
    harness.actor.send({ type: 'field.change', field: 'name', value: 'X' });
    expect(harness.requests).toHaveLength(1);
    expect(harness.actor.getSnapshot().context).toEqual(locked.context);
  });
});

describe('signUpMachine: failures (R4.4, R8.1 to R8.3)', async () => {
  async function failWith(error: unknown) {
    const harness = startSignUp();
    harness.fillValidForm();
    await harness.submit();
    harness.requests[0]?.answer.reject(error);
    await harness.settle();
    return harness;
  }

  // The model tests (tests/machines/model.test.ts) check what each failure
  // shows and keeps; here, which failure an error stands for, and that it is
  // reported (R7.4, ADR-0037).
  it.each([
    [new SignUpRejection({ kind: 'rateLimited' }), { kind: 'rateLimited' }],
    [new SignUpRejection({ kind: 'invalidName' }), { kind: 'invalidName' }],
    [new SignUpRejection({ kind: 'emailInUse' }), { kind: 'emailInUse' }],
    [
      new SignUpRejection({ kind: 'general', reason: 'network' }),
      { kind: 'general', reason: 'network' },
    ],
    // Only the contract's class is a rejection: a look-alike is no answer
    // the client decided on.
    [
      Object.assign(new Error('sign-up failed: rateLimited'), {
        name: 'SignUpRejection',
        failure: { kind: 'rateLimited' },
      }),
      { kind: 'general', reason: 'unexpected' },
    ],
    [new Error('boom'), { kind: 'general', reason: 'unexpected' }],
    ['not even an Error', { kind: 'general', reason: 'unexpected' }],
  ])('%s: the failure of its kind, reported', async (error, failure) => {
    const harness = await failWith(error);
    expect(harness.actor.getSnapshot().value).toEqual({
      failure: failure.kind,
    });
    expect(harness.reports).toEqual([failure]);
  });

  it('submitting again clears the failure; the spent captcha must be solved again', async () => {
    const harness = await failWith(
      new SignUpRejection({ kind: 'general', reason: 'timeout' }),
    );
    await harness.submit();
    let snapshot = harness.actor.getSnapshot();
    expect(snapshot.value).toBe('idle');
    expect(snapshot.context.errors).toEqual({
      captcha: messages.captchaRequired,
    });
    harness.actor.send({ type: 'captcha.solve', token: 'tok-2' });
    await harness.submit();
    snapshot = harness.actor.getSnapshot();
    expect(snapshot.value).toBe('submitting');
    expect(harness.requests[1]?.request.captchaToken).toBe('tok-2');
  });
});

// The model tests walk the waits for the chunks (ADR-0058, ADR-0071): a submit
// locked until they arrive, then judged; a general failure when the rules
// cannot be fetched, the site URL's message when the host rule cannot.
describe('signUpMachine: the form’s rules arrive as chunks (ADR-0058, ADR-0071)', () => {
  it('when they cannot be fetched, nothing is sent and the captcha stays solved; the next submit fetches them again', async () => {
    const harness = startSignUp({}, undefined, { rules: 'held' });
    harness.fillValidForm();
    await harness.submit();
    expect(harness.actor.getSnapshot().value).toBe('validating');
    expect(harness.actor.getSnapshot().hasTag('locked')).toBe(true);
    harness.rulesLoads[0]?.reject(new TypeError('Failed to fetch'));
    await harness.settle();
    let snapshot = harness.actor.getSnapshot();
    expect(snapshot.value).toEqual({ failure: 'general' });
    // No request was sent, so the captcha's token is still good.
    expect(snapshot.context.captchaToken).toBe('captcha-token');
    expect(harness.captchaResets).toBe(0);
    expect(harness.requests).toHaveLength(0);
    // Nothing was sent, so there is nothing to report (ADR-0071).
    expect(harness.reports).toEqual([]);

    await harness.submit();
    expect(harness.rulesLoads).toHaveLength(2);
    harness.rulesLoads[1]?.resolve();
    await harness.settle();
    snapshot = harness.actor.getSnapshot();
    expect(snapshot.value).toBe('submitting');
    expect(selectFormLevelFailure(snapshot)).toBeNull();
    expect(harness.requests).toHaveLength(1);
  });

  it('an internationalised host waits for the host rule, and is sent as typed, with its protocol', async () => {
    const harness = startSignUp();
    harness.fillValidForm();
    harness.actor.send({
      type: 'field.change',
      field: 'url',
      value: 'bücher.de',
    });
    await harness.submit();
    expect(harness.actor.getSnapshot().value).toBe('validating');
    expect(harness.hostRuleLoads).toHaveLength(1);
    harness.hostRuleLoads[0]?.resolve(checkHostName);
    await harness.settle();
    expect(harness.actor.getSnapshot().value).toBe('submitting');
    expect(harness.requests[0]?.request.url).toBe('https://bücher.de');
  });

  it('without the host rule, the site URL says it could not be checked (ADR-0059), with the other fields’ errors; the next submit fetches it again', async () => {
    const harness = startSignUp();
    harness.actor.send({
      type: 'field.change',
      field: 'url',
      value: 'bücher.de',
    });
    await harness.submit();
    harness.hostRuleLoads[0]?.reject(new TypeError('Failed to fetch'));
    await harness.settle();
    const snapshot = harness.actor.getSnapshot();
    expect(snapshot.value).toBe('idle');
    expect(snapshot.context.errors).toEqual({
      name: messages.nameRequired,
      email: messages.emailRequired,
      url: messages.urlUnchecked,
      tos: messages.tosRequired,
      captcha: messages.captchaRequired,
    });
    await harness.submit();
    expect(harness.hostRuleLoads).toHaveLength(2);
  });
});

describe('signUpMachine: what `submitting` sends', () => {
  it('is the form `validating` accepted, or nothing: without one, the machine fails loudly', async () => {
    const errors: unknown[] = [];
    const forgetful = signUpMachine.provide({
      actors: {
        checkForm: fromPromise(async ({ input }) => verdictOf(input)),
      },
      // An implementation that drops the accepted form.
      actions: { acceptForm: assign({ accepted: null }) },
    });
    const actor = createActor(forgetful, { input: {} });
    actor.subscribe({ error: (error) => errors.push(error) });
    actor.start();
    fillValidForm(actor, 'token');
    actor.send({ type: 'submit' });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(String(errors[0])).toBe(
      'Error: no accepted form: submitting needs one',
    );
  });
});
