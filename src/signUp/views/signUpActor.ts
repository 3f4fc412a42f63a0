import type { ActorRefFrom } from 'xstate';
import type { signUpMachine } from '../../../machines/signUpMachine';

/** The running sign-up machine the form's parts talk to. */
export type SignUpActor = ActorRefFrom<typeof signUpMachine>;
