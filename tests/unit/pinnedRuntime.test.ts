/**
 * The pinned runtime (issue 57, ADR-0118): one
 * Node.js version named in package.json's devDependencies and in
 * `.node-version`, `engines` that allow 24 and later, the service's own
 * minimum the same, and the test commands' refusal of another major.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../harness/page/paths';
import {
  pinnedNodeVersion,
  runtimeMismatch,
} from '../../harness/run/pinnedRuntime';
import { MIN_NODE_MAJOR } from '../../server/environment';

const manifest = JSON.parse(
  readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8'),
) as { engines: { node: string }; devDependencies: Record<string, string> };

describe('the pin', () => {
  it('is one exact version of an LTS line (an even major, 24 or later)', () => {
    const pinned = pinnedNodeVersion();
    expect(pinned).toMatch(/^\d+\.\d+\.\d+$/);
    const major = Number(pinned.split('.')[0]);
    expect(major % 2).toBe(0);
    expect(major).toBeGreaterThanOrEqual(24);
  });

  it('.node-version names the same version', () => {
    expect(
      readFileSync(join(PROJECT_ROOT, '.node-version'), 'utf8').trim(),
    ).toBe(pinnedNodeVersion());
  });

  it('engines allow Node.js 24 and later, the minimum the service warns below', () => {
    expect(manifest.engines.node).toBe('>=24');
    expect(MIN_NODE_MAJOR).toBe(24);
  });

  it('this test runs on it', () => {
    expect(process.versions.node.split('.')[0]).toBe(
      pinnedNodeVersion().split('.')[0],
    );
  });

  it('is refused when it is a range, not a version', () => {
    const root = mkdtempSync(join(tmpdir(), 'pin-'));
    writeFileSync(
      join(root, 'package.json'),
      JSON.stringify({ devDependencies: { node: '^26.0.0' } }),
    );
    expect(() => pinnedNodeVersion(root)).toThrow(/exact devDependency "node"/);
  });
});

describe('a test command on another runtime', () => {
  it('runs on any release of the pinned major', () => {
    expect(runtimeMismatch('npm test', '26.0.0', '26.10.0')).toBeUndefined();
    expect(runtimeMismatch('npm test', 'v26.12.1', '26.10.0')).toBeUndefined();
  });

  it.each(['20.20.2', '24.11.0', '27.0.0'])(
    'stops on %s with a sentence naming both versions and what to do',
    (running) => {
      const sentence = runtimeMismatch('npm test', running, '26.10.0');
      expect(sentence).toContain(`npm test runs on Node.js ${running}`);
      expect(sentence).toContain('pins Node.js 26.10.0');
      expect(sentence).toContain('`npm install`');
    },
  );
});
