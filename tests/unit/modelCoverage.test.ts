import { describe, expect, it } from 'vitest';
import { createActor, createMachine } from 'xstate';
import {
  coverage,
  definedTransitions,
  recordTransitions,
} from '../../harness/model/transitions';

// A machine with a guarded, an eventless and a targetless transition.
const toy = createMachine({
  id: 'toy',
  initial: 'a',
  context: { ready: false },
  states: {
    a: {
      on: {
        go: [{ guard: ({ context }) => context.ready, target: 'c' }, 'b'],
        poke: {},
      },
    },
    b: { always: { target: 'c' } },
    c: { type: 'final' },
  },
});

describe('model coverage', () => {
  it('reads every transition from the machine definition', () => {
    expect(definedTransitions(toy)).toEqual([
      'toy.a --go [inline guard]--> toy.c',
      'toy.a --go--> toy.b',
      'toy.a --poke--> (self)',
      'toy.b --always--> toy.c',
    ]);
  });

  it('counts only the transitions an actor really took, and names the rest', () => {
    const { record, inspect } = recordTransitions('toy');
    const actor = createActor(toy, { inspect }).start();
    actor.send({ type: 'go' });
    expect(record.transitions).toEqual([
      'toy.a --go--> toy.b',
      'toy.b --always--> toy.c',
    ]);
    expect(coverage(definedTransitions(toy), record.transitions)).toEqual({
      covered: 2,
      total: 4,
      missing: ['toy.a --go [inline guard]--> toy.c', 'toy.a --poke--> (self)'],
    });
    // Every source counts as reached, the transient `b` included.
    expect([...record.states].sort()).toEqual(['toy.a', 'toy.b', 'toy.c']);
  });
});
