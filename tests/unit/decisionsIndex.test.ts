/**
 * The index at the top of docs/decisions.md (issue 47): committed as the
 * decisions say it (`npm run decisions` writes it, as the diagrams are
 * written), and read from the decisions' own marks: a title over several
 * lines, the section as the area, `*Replaced by [Dn](#Dn)*`, `*Withdrawn*`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  INDEX_END,
  INDEX_START,
  readDecisions,
  withDecisionsIndex,
} from '../../scripts/docs/decisionsIndex';
import { PROJECT_ROOT } from '../../harness/page/paths';

const SAMPLE = `# Decisions

Intro.

## Stack

- <a id="D1"></a>**D1 The stack.** React and TypeScript.
- <a id="D3"></a>**D3 A title that runs over
  two lines.** *Replaced by [D1](#D1).* Its text.

## Pages

- <a id="D2"></a>**D2 \`/\` is the app | or not:** *Withdrawn: nothing
  replaces it.*
`;

describe('the decisions index', () => {
  it('is committed as the decisions say it (stale: run npm run decisions)', () => {
    const path = resolve(PROJECT_ROOT, 'docs/decisions.md');
    const committed = existsSync(path) ? readFileSync(path, 'utf8') : '';
    expect(committed).toContain(INDEX_START);
    expect(withDecisionsIndex(committed) === committed).toBe(true);
  });

  it('reads each decision’s title, status and area, in the order of their numbers', () => {
    expect(readDecisions(SAMPLE)).toEqual([
      { id: 'D1', title: 'The stack', status: 'current', area: 'Stack' },
      {
        id: 'D2',
        title: '`/` is the app | or not',
        status: 'withdrawn',
        area: 'Pages',
      },
      {
        id: 'D3',
        title: 'A title that runs over two lines',
        status: 'replaced by D1',
        area: 'Stack',
      },
    ]);
  });

  it('writes a table before the first section, and rewrites only that table', () => {
    const once = withDecisionsIndex(SAMPLE);
    expect(once).toBe(
      SAMPLE.replace(
        '## Stack',
        `${INDEX_START}

| id | decision | status | area |
|---|---|---|---|
| [D1](#D1) | The stack | current | Stack |
| [D2](#D2) | \`/\` is the app \\| or not | withdrawn | Pages |
| [D3](#D3) | A title that runs over two lines | replaced by D1 | Stack |

${INDEX_END}

## Stack`,
      ),
    );
    expect(withDecisionsIndex(once)).toBe(once);
  });

  it('refuses an id used twice, and a replacement that does not exist', () => {
    expect(() =>
      readDecisions(
        `## A\n\n- <a id="D1"></a>**D1 One.**\n- <a id="D1"></a>**D1 Two.**\n`,
      ),
    ).toThrow(/D1 is used twice/);
    expect(() =>
      readDecisions(
        `## A\n\n- <a id="D1"></a>**D1 One.** *Replaced by [D9](#D9).*\n`,
      ),
    ).toThrow(/D1 is replaced by D9, which does not exist/);
  });
});
