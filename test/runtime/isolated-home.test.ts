import { spawnSync } from 'node:child_process';
import { homedir, tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';

describe('the test environment (test/support/isolated-home.ts)', () => {
  it('runs every test file and every child with a HOME of its own that holds no rc or config file', () => {
    expect(process.env.HOME).toMatch(new RegExp(`^${tmpdir()}/wsapi-test-home-[^/]+/file-[^/]+$`)); // this file's, inside the run's
    expect(homedir()).toBe(process.env.HOME);
    // Shells the tests ran may have left a .bash_history there; nothing they read at start may exist.
    const probe = 'printf "%s|" "$HOME"; for f in .bashrc .profile .bash_profile .gitconfig .npmrc; do [ -e "$HOME/$f" ] && printf "%s " "$f"; done; true';
    const child = spawnSync('bash', ['-ic', probe], { encoding: 'utf8' });
    expect(child.stdout).toBe(`${process.env.HOME}|`);
  });
});
