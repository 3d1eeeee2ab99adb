/**
 * The ignored folders a walk finds (core/ignore/ignored-folders.ts), what the OS watcher is told not to enter:
 * each ignored folder once, never what is below it; nested `.gitignore` files and virtualenvs count; what the
 * watcher skips anyway (names, paths) is neither entered nor listed; the bounds say so when they cut.
 */
import { describe, expect, it } from 'vitest';
import { MemoryFileSystem } from '../../../adapters/fs/memory-file-system.ts';
import { createIgnoreRules } from '../../../core/ignore/ignore-rules.ts';
import { findIgnoredFolders } from '../../../core/ignore/ignored-folders.ts';
import { heldGiveWay } from '../../support/gates.ts';

const tree = () =>
  new MemoryFileSystem({
    '/ws/.gitignore': 'build/\n*.log\n',
    '/ws/src/a.ts': 'a',
    '/ws/build/deep/x.js': 'x',
    '/ws/app.log': 'l',
    '/ws/pkg/.gitignore': 'out/\n',
    '/ws/pkg/out/gen.js': 'g',
    '/ws/pkg/src/out.ts': 'a file named like the pattern',
    '/ws/env/pyvenv.cfg': 'home = /usr',
    '/ws/env/lib/site.py': 's',
    '/ws/node_modules/x/index.js': 'x',
    '/ws/.agents/a1/build/y.js': 'y',
  });

describe('findIgnoredFolders', () => {
  it('lists each ignored folder once (nested .gitignore and virtualenvs too), skipping what the watcher skips', async () => {
    const fs = tree();
    const found = await findIgnoredFolders(fs, '/ws', createIgnoreRules(fs, '/ws'), {
      skipNames: new Set(['node_modules']),
      skipPaths: ['/ws/.agents'],
    });
    expect(found.complete).toBe(true);
    expect(found.folders.sort()).toEqual(['/ws/build', '/ws/env', '/ws/pkg/out']);
  });

  it('walks below one folder only, and nothing when that folder is itself ignored', async () => {
    const fs = tree();
    const rules = createIgnoreRules(fs, '/ws');
    expect(await findIgnoredFolders(fs, '/ws', rules, { under: 'pkg' })).toEqual({ folders: ['/ws/pkg/out'], complete: true });
    expect(await findIgnoredFolders(fs, '/ws', rules, { under: 'build' })).toEqual({ folders: [], complete: true });
  });

  it('says when a bound cut the walk short', async () => {
    const fs = tree();
    const rules = createIgnoreRules(fs, '/ws');
    expect(await findIgnoredFolders(fs, '/ws', rules, { maxIgnored: 1, skipNames: new Set(['node_modules']) })).toEqual({
      folders: ['/ws/build'],
      complete: false,
    });
    expect((await findIgnoredFolders(fs, '/ws', rules, { maxFolders: 1 })).complete).toBe(false);
  });

  it('reads no folder while giveWay holds, and finds the same folders once it lets go', async () => {
    const fs = tree();
    const folders: string[] = [];
    const readdir = fs.readdir.bind(fs);
    fs.readdir = (at, options) => {
      folders.push(at);
      return readdir(at, options);
    };
    const gate = heldGiveWay();
    const walk = findIgnoredFolders(fs, '/ws', createIgnoreRules(fs, '/ws'), {
      skipNames: new Set(['node_modules']),
      skipPaths: ['/ws/.agents'],
      giveWay: gate.giveWay,
    });
    expect(await Promise.race([gate.asked.then(() => 'asked'), walk.then(() => 'walked')])).toBe('asked');
    expect(folders).toEqual([]);
    gate.release();
    const found = await walk;
    expect(found.folders.sort()).toEqual(['/ws/build', '/ws/env', '/ws/pkg/out']);
    expect(found.complete).toBe(true);
  });
});
