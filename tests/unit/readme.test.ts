/**
 * The README a newcomer enters by (issue 47): its first screen says where to
 * start reading, and it stays at most 250 lines besides its generated
 * diagrams (the Mermaid blocks `npm run diagrams` writes between
 * `<!-- diagram:… -->` and `<!-- /diagram -->`).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../harness/page/paths';

const README = readFileSync(resolve(PROJECT_ROOT, 'README.md'), 'utf8');

/** A first screen: what a laptop shows of a rendered README unscrolled. */
const FIRST_SCREEN_LINES = 40;

describe('the README', () => {
  it('is at most 250 lines besides its generated diagrams', () => {
    const written = README.replace(
      /<!-- diagram:\w+ -->[\s\S]*?<!-- \/diagram -->\n?/g,
      '',
    );
    expect(written.split('\n').length).toBeLessThanOrEqual(250);
  });

  it('says on its first screen where to start reading, in order', () => {
    const firstScreen = README.split('\n').slice(0, FIRST_SCREEN_LINES);
    const heading = firstScreen.findIndex((line) =>
      /^## Where to start reading$/.test(line),
    );
    expect(heading).toBeGreaterThan(0);
    const steps = firstScreen
      .slice(heading)
      .filter((line) => /^\d+\. /.test(line))
      .map((line) => Number(/^(\d+)\./.exec(line)?.[1]));
    expect(steps.length).toBeGreaterThanOrEqual(3);
    expect(steps).toEqual(steps.map((_, index) => index + 1));
  });
});
