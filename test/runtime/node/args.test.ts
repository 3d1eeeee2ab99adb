import { mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseCliArgs, UsageError, type CliConfig } from '../../../runtime/node/args.ts';

describe('parseCliArgs', () => {
  let dir: string;

  beforeEach(async () => {
    dir = await realpath(await mkdtemp(join(tmpdir(), 'wsapi-args-')));
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function config(argv: string[], env: Record<string, string> = {}): Promise<CliConfig> {
    const command = await parseCliArgs(argv, env, dir);
    if (command.help) throw new Error('unexpected --help');
    return command.config;
  }

  async function usageError(argv: string[], env: Record<string, string> = {}): Promise<string> {
    const error = await parseCliArgs(argv, env, dir).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).exitCode).toBe(2);
    return (error as UsageError).message;
  }

  it('defaults: current folder, 127.0.0.1:8787, a generated token, confined, no origins', async () => {
    const parsed = await config([]);
    expect(parsed).toMatchObject({ root: dir, host: '127.0.0.1', port: 8787, tokenSource: 'generated', unrestricted: false, allowedOrigins: [] });
    expect(parsed.auth).toEqual({ token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
  });

  it('reads every flag', async () => {
    const parsed = await config([
      '--cwd', dir, '--host', 'localhost', '--port', '0', '--token', 'tok', '--unrestricted',
      '--allow-origin', 'https://ide.example/', '--allow-origin', '*',
    ]);
    expect(parsed).toEqual({
      root: dir, host: 'localhost', port: 0, auth: { token: 'tok' }, tokenSource: 'flag', unrestricted: true,
      allowedOrigins: ['https://ide.example', '*'],
    });
  });

  it('resolves --cwd against the current folder and to its real path', async () => {
    await symlink(dir, join(dir, 'link'));
    expect((await config(['--cwd', 'link'])).root).toBe(dir);
  });

  it('takes the token from WORKSPACE_TOKEN unless --token is given', async () => {
    expect((await config([], { WORKSPACE_TOKEN: 'from-env' })).auth).toEqual({ token: 'from-env' });
    expect((await config([], { WORKSPACE_TOKEN: 'from-env' })).tokenSource).toBe('env');
    expect((await config(['--token', 'flag'], { WORKSPACE_TOKEN: 'from-env' })).auth).toEqual({ token: 'flag' });
    expect((await config([], { WORKSPACE_TOKEN: '' })).tokenSource).toBe('generated');
  });

  it('--no-auth disables auth on loopback hosts', async () => {
    for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]']) {
      const parsed = await config(['--no-auth', '--host', host], { WORKSPACE_TOKEN: 'ignored' });
      expect(parsed.auth).toEqual({ disabled: true });
      expect(parsed.tokenSource).toBe('none');
    }
  });

  it('refuses --no-auth on a non-loopback host, but allows a token there', async () => {
    expect(await usageError(['--no-auth', '--host', '0.0.0.0'])).toMatch(/refusing to serve 0\.0\.0\.0 without a token/);
    expect(await usageError(['--no-auth', '--host', '::'])).toMatch(/without a token/);
    expect(await usageError(['--no-auth', '--host', '192.168.1.5'])).toMatch(/without a token/);
    expect((await config(['--host', '0.0.0.0'])).tokenSource).toBe('generated');
  });

  it('refuses contradictions and bad values', async () => {
    expect(await usageError(['--no-auth', '--token', 't'])).toMatch(/contradict/);
    expect(await usageError(['--port', 'http'])).toMatch(/^--port: must be a whole number/);
    expect(await usageError(['--port', '70000'])).toMatch(/^--port: must be at most 65535/);
    expect(await usageError(['--port', '-1'])).toMatch(/--port/);
    expect(await usageError(['--allow-origin', 'ide.example'])).toMatch(/^--allow-origin: 'ide.example' is not an http\(s\) origin/);
    expect(await usageError(['--token', ''])).toMatch(/^--token: must not be empty/);
    expect(await usageError(['--bogus'])).toMatch(/bogus/);
    expect(await usageError(['stray'])).toMatch(/stray/);
    expect(await usageError(['--port'])).toMatch(/--port/);
  });

  it('refuses a --cwd that is missing or not a folder', async () => {
    expect(await usageError(['--cwd', join(dir, 'missing')])).toBe(`--cwd ${join(dir, 'missing')}: no such folder`);
    await writeFile(join(dir, 'file.txt'), 'x');
    expect(await usageError(['--cwd', 'file.txt'])).toBe(`--cwd ${join(dir, 'file.txt')}: not a folder`);
  });

  it('--help wins over everything else', async () => {
    expect(await parseCliArgs(['--help', '--no-auth', '--host', '0.0.0.0'], {}, dir)).toEqual({ help: true });
    expect(await parseCliArgs(['-h'], {}, dir)).toEqual({ help: true });
  });
});
