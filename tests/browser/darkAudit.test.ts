/**
 * axe-core in the dark scheme (prefers-color-scheme: dark) on every state
 * of both machines, at the phone and the desktop width, each reached along
 * the model's paths as the state atlas reaches it (scripts/atlas/shoot.ts,
 * without its pictures): no WCAG 2.2 AA violation (issue 22, ADR-0052,
 * docs/accessibility.md). A sweep of every state, in Chromium: it runs in
 * `npm run test:engines` with the other sweeps, not in `npm test` (ADR-0086).
 * The page's other settings are tests/browser/appearance.test.ts's.
 */
import { describe, expect, it } from 'vitest';
import { axeViolationsIn } from './support/axe';
import { auditEveryState } from '../../scripts/atlas/shoot';
import { PAGE_DIAGRAMS } from '../../scripts/docs/diagramFiles';
import { stateNodesOf } from '../../scripts/docs/mermaid';
import { useChromiumAndServer } from './support/browserSuite';

const suite = useChromiumAndServer();

describe('the dark scheme (prefers-color-scheme: dark)', () => {
  it('axe-core finds no WCAG 2.2 AA violation in any state of either machine, at the phone and the desktop width', async () => {
    // Every state the atlas pictures, reached along the model's paths as
    // the atlas reaches it (scripts/atlas/shoot.ts), without its pictures.
    const { shots, found } = await auditEveryState(
      suite.browser,
      suite.server.origin,
      axeViolationsIn,
    );
    console.log(`dark-scheme audit: ${shots.length} states at 2 widths`);
    for (const { machine } of PAGE_DIAGRAMS) {
      for (const node of stateNodesOf(machine)) {
        expect(
          shots.some((shot) => shot.nodes.includes(node.id)),
          `${node.id} was not audited`,
        ).toBe(true);
      }
    }
    expect(found).toEqual([]);
  }, 300_000);
});
