/**
 * The index of the ADRs, docs/adr/README.md (issue 61): committed as the
 * ADR files say it (`npm run decisions` writes it, as the diagrams are
 * written), and read from the files' own form: the heading, the status
 * and area lines, the three sections, a replacement linked to its file.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  INDEX_END,
  INDEX_START,
  readAdr,
  readAdrs,
  withAdrIndex,
  type AdrFile,
} from '../../scripts/docs/adrIndex';
import { PROJECT_ROOT } from '../../harness/page/paths';

/** An ADR file in the house form, with its parts given or defaulted. */
const adr = (
  name: string,
  parts: {
    heading?: string;
    status?: string;
    area?: string;
    sections?: string;
  } = {},
): AdrFile => ({
  name,
  text: `${parts.heading ?? `# ADR-${name.slice(0, 4)}: A title`}

- Status: ${parts.status ?? 'Accepted'}
- Area: ${parts.area ?? 'Stack and tools'}

${
  parts.sections ??
  `## Context

Why.

## Decision

What.

## Consequences

What follows.`
}
`,
});

const SAMPLE: AdrFile[] = [
  adr('0003-the-pipe-or-not.md', {
    heading: '# ADR-0003: `/` is the app | or not',
    status: 'Withdrawn',
    area: 'Pages',
  }),
  adr('0001-the-stack.md', { heading: '# ADR-0001: The stack' }),
  adr('0002-an-old-one.md', {
    heading: '# ADR-0002: An old one',
    status: 'Superseded by [ADR-0001](0001-the-stack.md)',
  }),
  { name: 'README.md', text: 'Not an ADR.' },
];

describe('the ADR index', () => {
  it('is committed as the ADR files say it (stale: run npm run decisions)', () => {
    const folder = resolve(PROJECT_ROOT, 'docs/adr');
    const files = readdirSync(folder)
      .filter((name) => name.endsWith('.md'))
      .map((name) => ({
        name,
        text: readFileSync(join(folder, name), 'utf8'),
      }));
    const committed = files.find((file) => file.name === 'README.md')?.text;
    expect(committed).toContain(INDEX_START);
    expect(withAdrIndex(committed ?? '', readAdrs(files)) === committed).toBe(
      true,
    );
  });

  it('reads each ADR’s id, title, status and area, in the order of their numbers', () => {
    expect(readAdrs(SAMPLE)).toEqual([
      {
        number: 1,
        id: 'ADR-0001',
        file: '0001-the-stack.md',
        title: 'The stack',
        status: 'Accepted',
        area: 'Stack and tools',
      },
      {
        number: 2,
        id: 'ADR-0002',
        file: '0002-an-old-one.md',
        title: 'An old one',
        status: 'Superseded by ADR-0001',
        supersededBy: 1,
        area: 'Stack and tools',
      },
      {
        number: 3,
        id: 'ADR-0003',
        file: '0003-the-pipe-or-not.md',
        title: '`/` is the app | or not',
        status: 'Withdrawn',
        area: 'Pages',
      },
    ]);
  });

  it('writes a table between its markers, and rewrites only that table', () => {
    const readme = `# ADRs\n\nIntro.\n\n${INDEX_START}\nold\n${INDEX_END}\n\nAfter.\n`;
    const once = withAdrIndex(readme, readAdrs(SAMPLE));
    expect(once).toBe(`# ADRs

Intro.

${INDEX_START}

| ADR | title | status | area |
|---|---|---|---|
| ADR-0001 | [The stack](0001-the-stack.md) | Accepted | Stack and tools |
| ADR-0002 | [An old one](0002-an-old-one.md) | Superseded by ADR-0001 | Stack and tools |
| ADR-0003 | [\`/\` is the app \\| or not](0003-the-pipe-or-not.md) | Withdrawn | Pages |

${INDEX_END}

After.
`);
    expect(withAdrIndex(once, readAdrs(SAMPLE))).toBe(once);
    expect(() => withAdrIndex('# ADRs\n', [])).toThrow(/no place/);
  });

  it('refuses a file out of the form', () => {
    expect(() => readAdr(adr('58-short.md'))).toThrow(/NNNN-slug\.md/);
    expect(() =>
      readAdr(adr('0058-a.md', { heading: '# ADR-0057: A title' })),
    ).toThrow(/0058-a\.md: its heading says ADR-0057/);
    expect(() => readAdr(adr('0058-a.md', { status: 'Proposed' }))).toThrow(
      /its status is not/,
    );
    expect(() =>
      readAdr(adr('0058-a.md', { status: 'Superseded by ADR-0059' })),
    ).toThrow(/does not link/);
    expect(() =>
      readAdr(
        adr('0058-a.md', {
          sections: '## Context\n\nWhy.\n\n## Consequences\n\nThen.',
        }),
      ),
    ).toThrow(/no `## Decision`/);
    expect(() =>
      readAdr(
        adr('0058-a.md', {
          sections:
            '## Context\n\nWhy.\n\n## Decision\n\n## Consequences\n\nThen.',
        }),
      ),
    ).toThrow(/its Decision is empty/);
  });

  it('refuses a number used twice, and a replacement that does not exist or is linked to another file', () => {
    expect(() => readAdrs([adr('0001-one.md'), adr('0001-two.md')])).toThrow(
      /ADR-0001 is used twice/,
    );
    expect(() =>
      readAdrs([
        adr('0001-one.md', {
          status: 'Superseded by [ADR-0009](0009-nine.md)',
        }),
      ]),
    ).toThrow(/ADR-0001 is superseded by ADR-0009, which does not exist/);
    expect(() =>
      readAdrs([
        adr('0001-one.md', {
          status: 'Superseded by [ADR-0002](0002-old-name.md)',
        }),
        adr('0002-new-name.md'),
      ]),
    ).toThrow(/ADR-0001 links ADR-0002 to another file/);
  });
});
