/**
 * The two machines of the atlas, with their test models' planned paths
 * (harness/model) and the looks a state may have.
 */
import type { AnyMachineSnapshot } from 'xstate';
import type { ConsentInput } from '../../machines/consentMachine';
import type { SignUpContext, SignUpInput } from '../../machines/signUpMachine';
import {
  consentLook,
  consentModel,
  describeConsentInput,
} from '../../harness/model/consentModel';
import { planPaths } from '../../harness/model/planner';
import { signUpModel } from '../../harness/model/signUpModel';
import type { AtlasMachine } from './plan';

/**
 * The sign-up machine: each failure kind is a state of its own; `idle`
 * looks different once the client-side errors show.
 */
export function signUpAtlas(): AtlasMachine<SignUpInput> {
  return {
    name: 'signUpMachine',
    model: signUpModel,
    paths: planPaths(signUpModel),
    describeInput: () => '',
    variant: (snapshot: AnyMachineSnapshot) => {
      const context = snapshot.context as SignUpContext;
      if (snapshot.matches('idle') && Object.keys(context.errors).length > 0) {
        return 'errors shown';
      }
      return undefined;
    },
  };
}

/**
 * The consent machine: each choice with the modal open and closed, and the
 * looks its model's paths must reach (harness/model/consentModel.ts
 * `consentLook`): the rejection the browser's Global Privacy Control made,
 * the modal asking again for an outdated choice, a choice made over the
 * signal, and a stored one it yields to.
 */
export function consentAtlas(): AtlasMachine<ConsentInput> {
  return {
    name: 'consentMachine',
    model: consentModel,
    paths: planPaths(consentModel),
    describeInput: describeConsentInput,
    variant: consentLook,
  };
}
