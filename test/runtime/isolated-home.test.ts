import { spawnSync } from 'node:child_process';
import { homedir, tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';

describe('the test environment (test/support/isolated-home.ts)', () => {
  it('runs every test and every child with an empty HOME of its own', () => {
    expect(process.env.HOME).toMatch(new RegExp(`^${tmpdir()}/wsapi-test-home-[^/]+/file-[^/]+$`)); // this file's, inside the run's
    expect(homedir()).toBe(process.env.HOME);
    const child = spawnSync('bash', ['-ic', 'printf "%s|" "$HOME"; ls -A "$HOME" | wc -l'], { encoding: 'utf8' });
    expect(child.stdout.trim()).toMatch(new RegExp(`^${process.env.HOME}\\|\\s*0$`));
  });
});
