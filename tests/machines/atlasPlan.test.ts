/**
 * The atlas's plan (scripts/atlas/plan.ts), without a browser: every state
 * node of both machines, read from the machines, gets a picture along a
 * planned model path that really reaches it; momentary states are marked
 * as such, with where they lead; each failure kind gets its own picture.
 */
import { describe, expect, it } from 'vitest';
import type { AnyStateNode } from 'xstate';
import { consentAtlas, signUpAtlas } from '../../scripts/atlas/machines';
import { planRuns, shotsOf, type AtlasMachine } from '../../scripts/atlas/plan';
import { stateNodesOf } from '../../scripts/docs/mermaid';
import { walkPath } from '../../harness/model/planner';
import { MODEL_FAILURES } from '../../harness/model/signUpModel';

/** Left by an unguarded eventless transition: never on screen. */
const isMomentary = (node: AnyStateNode) =>
  (node.always ?? []).some((transition) => !transition.guard);

function checkPlan<TInput>(atlas: AtlasMachine<TInput>) {
  const { machine } = atlas.model;
  const runs = planRuns(atlas);
  const shots = shotsOf(atlas, runs);

  it('pictures every state node of the machine', () => {
    for (const node of stateNodesOf(machine)) {
      expect(
        shots.some((shot) => shot.nodes.includes(node.id)),
        `no picture of ${node.id}`,
      ).toBe(true);
    }
    const ids = shots.map((shot) => shot.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('plays a prefix of a planned path, up to each picture', () => {
    for (const run of runs) {
      const path = atlas.paths[run.pathIndex];
      expect(path?.input).toEqual(run.input);
      expect(path?.events.slice(0, run.events.length)).toEqual(run.events);
      for (const shot of run.shots) {
        expect(shot.playedBefore).toBeLessThanOrEqual(run.events.length);
      }
    }
  });

  it('reaches each state it pictures while it shows', () => {
    for (const shot of shots.filter((s) => s.moment === 'during')) {
      // The cases as the machine hears them (a chunk's arrival is the
      // verdict it makes: harness/model/planner.ts).
      const { states } = walkPath(atlas.model, shot.input, shot.reachedBy);
      const snapshot = states.at(-1)?.snapshot;
      if (!snapshot) throw new Error(`${shot.id}: no state`);
      const path = machine.getStateNodeById(shot.stateId).path.join('.');
      expect(snapshot.matches(path), shot.id).toBe(true);
      expect(atlas.variant(snapshot)).toBe(shot.variant);
      expect(shot.playedBefore).toBe(shot.reachedBy.length);
    }
  });

  it('marks momentary states, pictured just before, with where they lead', () => {
    for (const node of stateNodesOf(machine)) {
      for (const shot of shots.filter((s) => s.stateId === node.id)) {
        expect(shot.moment !== 'during', shot.id).toBe(isMomentary(node));
        if (shot.moment === 'during') continue;
        const targets = (node.always ?? []).flatMap((t) =>
          (t.target ?? []).map((target) => target.id),
        );
        expect(new Set(shot.leadsTo)).toEqual(new Set(targets));
        expect(shot.playedBefore).toBe(Math.max(0, shot.reachedBy.length - 1));
        expect(shot.moment).toBe(
          shot.reachedBy.length === 0 ? 'prerender' : 'before',
        );
      }
    }
  });
}

describe('the atlas plan of signUpMachine', () => {
  const atlas = signUpAtlas();
  checkPlan(atlas);

  it('pictures each failure kind, and idle with its errors shown', () => {
    const shots = shotsOf(atlas, planRuns(atlas));
    const failures = shots
      .filter((shot) => shot.stateId.startsWith('signUp.failure.'))
      .map((shot) => shot.stateId);
    const kinds = [
      ...new Set(MODEL_FAILURES.map(({ kind }) => `signUp.failure.${kind}`)),
    ];
    expect(failures.sort()).toEqual(kinds.sort());
    expect(
      shots
        .filter((shot) => shot.stateId === 'signUp.idle')
        .map((s) => s.variant),
    ).toEqual([undefined, 'errors shown']);
  });
});

describe('the atlas plan of consentMachine', () => {
  const atlas = consentAtlas();
  checkPlan(atlas);

  it('pictures the paths of issue 23: the GPC start, an outdated choice asked again, a choice over GPC, a stored choice GPC yields to', () => {
    const shots = shotsOf(atlas, planRuns(atlas));
    const looks = shots
      .filter((shot) => shot.variant !== undefined)
      .map((shot) => `${shot.stateId} ⟨${shot.variant ?? ''}⟩`);
    expect(looks.sort()).toEqual(
      [
        // ADR-0073: the browser's signal rejects; the modal says it is
        // honoured.
        'consent.rejected.closed ⟨rejected by GPC⟩',
        'consent.rejected.open ⟨rejected by GPC⟩',
        // ADR-0067: an outdated choice is asked again.
        'consent.unset.open ⟨asked again⟩',
        // ADR-0073: an explicit choice wins over the signal.
        'consent.accepted.closed ⟨chosen over GPC⟩',
        'consent.rejected.closed ⟨chosen over GPC⟩',
        // ADR-0073: so does a choice stored under the current revision.
        'consent.accepted.closed ⟨stored choice over GPC⟩',
        'consent.rejected.closed ⟨stored choice over GPC⟩',
      ].sort(),
    );
    const shot = (id: string) => shots.find((s) => s.id === id);
    // The GPC start is the page as it loads, no event played.
    expect(shot('consent.rejected.closed--rejected-by-GPC')).toMatchObject({
      input: { storedChoice: 'unset', gpcSignal: true },
      reachedBy: [],
    });
    // The accept over GPC is the visitor's, from the modal the settings
    // link opened.
    expect(
      shot('consent.accepted.closed--chosen-over-GPC')?.reachedBy.map(
        (event) => event.type,
      ),
    ).toEqual(['settings.open', 'consent.accept']);
  });
});
