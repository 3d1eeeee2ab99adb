import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NodeCommandLookup } from '../../../adapters/process/node-command-lookup.ts';

let base: string;
beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'wsapi-commands-'));
  for (const folder of ['one', 'two']) await mkdir(join(base, folder));
  await writeFile(join(base, 'one/runme'), '#!/bin/sh\n');
  await chmod(join(base, 'one/runme'), 0o755);
  await writeFile(join(base, 'one/plain'), 'not executable');
  await chmod(join(base, 'one/plain'), 0o644);
  await mkdir(join(base, 'one/folder'));
  await chmod(join(base, 'one/folder'), 0o755);
  await writeFile(join(base, 'two/later'), '#!/bin/sh\n');
  await chmod(join(base, 'two/later'), 0o700);
  await symlink(join(base, 'one/runme'), join(base, 'two/linked'));
});
afterAll(() => rm(base, { recursive: true, force: true }));

describe('NodeCommandLookup', () => {
  it('finds an executable file in any PATH folder (through a link too); not a plain file, a folder, a path or a relative PATH entry', async () => {
    const lookup = new NodeCommandLookup({ env: { PATH: `relative:${join(base, 'one')}:${join(base, 'missing')}:${join(base, 'two')}` } });
    expect(await lookup.hasCommand('runme')).toBe(true);
    expect(await lookup.hasCommand('later')).toBe(true);
    expect(await lookup.hasCommand('linked')).toBe(true);
    expect(await lookup.hasCommand('plain')).toBe(false);
    expect(await lookup.hasCommand('folder')).toBe(false);
    expect(await lookup.hasCommand('nope')).toBe(false);
    expect(await lookup.hasCommand(`${base}/one/runme`)).toBe(false);
    expect(await lookup.hasCommand('')).toBe(false);
    expect(await new NodeCommandLookup({ env: { PATH: 'relative' } }).hasCommand('runme')).toBe(false);
    expect(await new NodeCommandLookup({ env: {} }).hasCommand('sh')).toBe(false);
  });

  it('reads the daemon`s PATH by default', async () => {
    expect(await new NodeCommandLookup().hasCommand('sh')).toBe(true);
  });
});
