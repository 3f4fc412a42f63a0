/**
 * The embedded data directory (`DATA_DIR`; ADR-0048): created on the first
 * start with nothing installed but the npm packages, and held by one
 * instance. A second instance on it exits non-zero within 10 s, naming the
 * directory and the way out (`DATABASE_URL`), and neither it nor the
 * corruption two writers would cause touches the first, which keeps
 * serving. Creating the directory is all or nothing: a start that loses
 * the race to another leaves no half-made copy. Embedded database only: a PostgreSQL server takes any number of
 * instances (tests/server/instances.postgres.test.ts).
 */
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FORM, validSignUp } from './support/apiServer';
import { startService, type ServiceProcess } from './support/serviceProcess';
import { SIGN_UP_PATH } from '../../contract/signUp';
import { createPgliteDir } from '../../server/db/database';

const parent = mkdtempSync(join(tmpdir(), 'vigil-datadir-'));
const dataDir = join(parent, 'data');
const started: ServiceProcess[] = [];

afterAll(async () => {
  for (const service of started) {
    try {
      process.kill(service.pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
    await service.exited;
  }
  rmSync(parent, { recursive: true, force: true });
});

async function signUp(origin: string, body = validSignUp()) {
  const response = await fetch(`${origin}${SIGN_UP_PATH}`, {
    method: 'POST',
    headers: { 'content-type': FORM },
    body,
  });
  return response.status;
}

describe('DATA_DIR', () => {
  it('is created on the first start, then held by that instance alone', async () => {
    const first = await startService({ DATA_DIR: dataDir });
    started.push(first);
    const body = validSignUp();
    expect(await signUp(first.origin, body)).toBe(200);

    const began = Date.now();
    const second = await startService(
      { DATA_DIR: dataDir },
      { waitReady: false },
    );
    started.push(second);
    const exit = await second.exited;
    const seconds = (Date.now() - began) / 1000;
    expect(exit.code).not.toBe(0);
    expect(exit.code).not.toBeNull();
    expect(seconds).toBeLessThan(10);
    const message = second.output.join('\n');
    expect(message).toContain(dataDir);
    expect(message).toContain('DATABASE_URL');

    // The first keeps serving, and its data is whole.
    expect(await signUp(first.origin)).toBe(200);
    expect(await signUp(first.origin, body)).toBe(409);
    process.kill(first.pid, 'SIGTERM');
    expect(await first.exited).toEqual({ code: 0, signal: null });

    const after = await startService({ DATA_DIR: dataDir });
    started.push(after);
    expect(await signUp(after.origin, body)).toBe(409);
    expect((await fetch(`${after.origin}/healthz`)).status).toBe(200);
  });
});

describe('creating the database directory', () => {
  it('leaves no half-made copy behind when the directory appeared meanwhile', async () => {
    // Another process finished first: the target exists, not empty.
    const target = join(parent, 'raced');
    mkdirSync(target);
    writeFileSync(join(target, 'PG_VERSION'), '18\n');
    await expect(createPgliteDir(target)).rejects.toThrow();
    expect(
      readdirSync(parent).filter((name) => name.startsWith('raced')),
    ).toEqual(['raced']);
    expect(readdirSync(target)).toEqual(['PG_VERSION']);
  });
});
