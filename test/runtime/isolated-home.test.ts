import { spawnSync } from 'node:child_process';
import { homedir } from 'node:os';
import { describe, expect, it } from 'vitest';

describe('the test environment (test/support/isolated-home.ts)', () => {
  it('runs every test file and every child with a HOME of its own that holds no rc or config file', () => {
    // This file's, inside the run's (test/support/leak-check.ts points $TMPDIR, hence tmpdir(), at a folder of the
    // file's own: the run's home is named by its variable).
    const runHome = process.env.WSAPI_TEST_RUN_HOME ?? '';
    expect(runHome).toMatch(/\/wsapi-test-home-[^/]+$/);
    expect(process.env.HOME?.startsWith(`${runHome}/file-`)).toBe(true);
    expect(process.env.HOME?.slice(runHome.length)).toMatch(/^\/file-[^/]+$/);
    expect(homedir()).toBe(process.env.HOME);
    // Shells the tests ran may have left a .bash_history there; nothing they read at start may exist.
    const probe = 'printf "%s|" "$HOME"; for f in .bashrc .profile .bash_profile .gitconfig .npmrc; do [ -e "$HOME/$f" ] && printf "%s " "$f"; done; true';
    const child = spawnSync('bash', ['-ic', probe], { encoding: 'utf8' });
    expect(child.stdout).toBe(`${process.env.HOME}|`);
  });
});
