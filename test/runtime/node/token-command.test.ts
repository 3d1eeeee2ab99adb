import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { verifyScopedToken } from '../../../core/auth/scoped-token.ts';

const PROJECT = fileURLToPath(new URL('../../../', import.meta.url));

/** `workspace-api token …` from source, as a user runs it. */
function token(args: string[], env: Record<string, string | undefined> = {}) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'runtime/node/cli.ts', 'token', ...args], {
    cwd: PROJECT,
    env: { ...process.env, WORKSPACE_TOKEN: undefined, ...env },
    encoding: 'utf8',
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('workspace-api token', () => {
  it('prints one token alone on stdout, signed with $WORKSPACE_TOKEN or --token, with the lifetime asked for', () => {
    const before = Date.now();
    const fromEnv = token(['--scope', 'read', '--ttl', '30m'], { WORKSPACE_TOKEN: 'env-token' });
    expect(fromEnv.code).toBe(0);
    const [line, ...rest] = fromEnv.stdout.split('\n');
    expect(rest).toEqual(['']);
    const grant = verifyScopedToken(line!, ['env-token']);
    expect(grant?.scope).toEqual({ kind: 'read' });
    expect(grant!.expiresAt).toBeGreaterThanOrEqual(before + 30 * 60_000);
    expect(grant!.expiresAt).toBeLessThanOrEqual(Date.now() + 30 * 60_000 + 1000);
    expect(fromEnv.stderr).toMatch(/^workspace-api: scope read, valid until \d{4}-\d\d-\d\dT/);
    // The full token it signed with is never printed.
    expect(fromEnv.stdout + fromEnv.stderr).not.toContain('env-token');

    const fromFlag = token(['--scope', 'agent:a1', '--token', 'flag-token'], { WORKSPACE_TOKEN: 'env-token' });
    expect(verifyScopedToken(fromFlag.stdout.trim(), ['flag-token'])?.scope).toEqual({ kind: 'agent', agent: 'a1' });
  });

  it.each([
    [['--scope', 'read'], {}, "token: needs the daemon's full token to sign with: --token TOKEN or $WORKSPACE_TOKEN"],
    [['--ttl', '1h'], { WORKSPACE_TOKEN: 't' }, 'token: --scope is required (read or agent:ID)'],
    [['--scope', 'write'], { WORKSPACE_TOKEN: 't' }, 'token: --scope write: expected read or agent:ID'],
    [['--scope', 'read', '--ttl', '400d'], { WORKSPACE_TOKEN: 't' }, 'token: --ttl 400d: expected a duration such as 90s, 30m, 12h or 7d, at most 365d'],
    [['--scope', 'read', '--ttl', '0s'], { WORKSPACE_TOKEN: 't' }, 'token: --ttl 0s'],
    [['--scope', 'read', '--port', '1'], { WORKSPACE_TOKEN: 't' }, "Unknown option '--port'"],
  ])('%j: exit 2 with the reason, nothing on stdout', (args, env, reason) => {
    const result = token(args, env);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(reason);
  });
});
