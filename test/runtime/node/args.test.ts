import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
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

  it('defaults: current folder, 127.0.0.1:8787, a generated token, confined, watched, no origins', async () => {
    const parsed = await config([]);
    expect(parsed).toMatchObject({ root: dir, host: '127.0.0.1', port: 8787, tokenSource: 'generated', unrestricted: false, watch: true, allowedOrigins: [] });
    expect(parsed.mediaTicketTtlMs).toBe(60 * 60 * 1000);
    expect(parsed.commandTimeoutMs).toBe(120_000);
    expect(parsed.commandOutputCap).toBe(16 * 1024 * 1024);
    expect(parsed.maxTerminals).toBe(64);
    expect(parsed.terminalRingBytes).toBe(1024 * 1024);
    expect(parsed.terminalReapMs).toBe(30 * 60 * 1000);
    expect(parsed.maxChats).toBe(16);
    expect(parsed.chatTimeoutMs).toBe(30 * 60 * 1000);
    expect(parsed.chatModelsUrls).toEqual({});
    expect(parsed.panel).toBe(true);
    expect(parsed.acceptors).toBe(32);
    expect(parsed.auth).toEqual({ token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
  });

  it('reads every flag', async () => {
    const parsed = await config([
      '--cwd', dir, '--host', 'localhost', '--port', '0', '--token', 'tok', '--unrestricted', '--no-watch',
      '--allow-origin', 'https://ide.example/', '--allow-origin', '*', '--media-ticket-ttl', '90',
      '--command-timeout', '30', '--command-output-cap', '65536',
      '--max-terminals', '8', '--terminal-buffer', '65536', '--terminal-reap', '60',
      '--index-dir', '/var/cache/wsapi-index', '--embeddings-url', 'http://127.0.0.1:11434', '--embeddings-model', 'bge-m3',
      '--max-chats', '4', '--chat-timeout', '600', '--chat-models-url', 'opencode=http://127.0.0.1:9/or', '--chat-models-url', 'kilo=https://kilo.example',
      '--no-panel', '--acceptors', '2',
    ], { WORKSPACE_EMBEDDINGS_KEY: 'sk-local' });
    expect(parsed).toEqual({
      root: dir, host: 'localhost', port: 0, auth: { token: 'tok' }, tokenSource: 'flag', unrestricted: true, watch: false,
      allowedOrigins: ['https://ide.example', '*'], mediaTicketTtlMs: 90_000, commandTimeoutMs: 30_000, commandOutputCap: 65536,
      maxTerminals: 8, terminalRingBytes: 65536, terminalReapMs: 60_000,
      indexDir: '/var/cache/wsapi-index', noIndex: false, panel: false,
      embeddings: { url: 'http://127.0.0.1:11434', model: 'bge-m3', apiKey: 'sk-local' },
      maxChats: 4, chatTimeoutMs: 600_000, chatModelsUrls: { opencode: 'http://127.0.0.1:9/or', kilo: 'https://kilo.example' },
      acceptors: 2,
    });
  });

  it('--acceptors takes 1 to 64 handles', async () => {
    expect((await config(['--acceptors', '1'])).acceptors).toBe(1);
    expect((await config(['--acceptors', '64'])).acceptors).toBe(64);
    expect(await usageError(['--acceptors', '0'])).toBe('--acceptors: must be at least 1 handle');
    expect(await usageError(['--acceptors', '65'])).toBe('--acceptors: must be at most 64 handles (each is a descriptor woken by every connection)');
    expect(await usageError(['--acceptors', 'many'])).toBe('--acceptors: must be a whole number of handles');
  });

  it('--max-chats, --chat-timeout and --chat-models-url', async () => {
    expect((await config(['--max-chats', '256'])).maxChats).toBe(256);
    expect(await usageError(['--max-chats', '0'])).toBe('--max-chats: must be at least 1 chat');
    expect(await usageError(['--max-chats', '257'])).toBe('--max-chats: must be at most 256 chats (each is an agent CLI process tree)');
    expect((await config(['--chat-timeout', '86400'])).chatTimeoutMs).toBe(86_400_000);
    expect(await usageError(['--chat-timeout', '86401'])).toBe('--chat-timeout: must be at most 86400 seconds (1 day)');
    // The last one given for an agent wins.
    expect((await config(['--chat-models-url', 'kilo=http://a.example', '--chat-models-url', 'kilo=http://b.example'])).chatModelsUrls).toEqual({ kilo: 'http://b.example' });
    expect(await usageError(['--chat-models-url', 'claude=http://a.example'])).toBe("--chat-models-url: 'claude=http://a.example' is not AGENT=URL with AGENT opencode or kilo");
    expect(await usageError(['--chat-models-url', 'http://a.example'])).toBe("--chat-models-url: 'http://a.example' is not AGENT=URL with AGENT opencode or kilo");
    expect(await usageError(['--chat-models-url', 'kilo=ftp://a.example'])).toBe("--chat-models-url: 'ftp://a.example' is not an http(s) URL such as https://openrouter.ai");
  });

  it('search flags: --no-index, the default embeddings model, and an index folder that must be outside the root', async () => {
    expect(await config(['--no-index'])).toMatchObject({ noIndex: true });
    expect((await config([])).indexDir).toBeUndefined();
    expect((await config(['--embeddings-url', 'https://embed.example/v1'])).embeddings).toEqual({ url: 'https://embed.example/v1', model: 'nomic-embed-text' });
    await expect(config(['--cwd', dir, '--index-dir', join(dir, 'cache')])).rejects.toThrow(/inside the workspace root/);
    await expect(config(['--no-index', '--index-dir', '/tmp/x'])).rejects.toThrow('--index-dir and --no-index contradict each other');
    await expect(config(['--embeddings-url', 'ftp://x'])).rejects.toThrow(/--embeddings-url: must be an http\(s\) URL/);
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

  it('--media-ticket-ttl takes whole seconds from 1 to 7 days', async () => {
    expect((await config(['--media-ticket-ttl', '1'])).mediaTicketTtlMs).toBe(1000);
    expect((await config(['--media-ticket-ttl', '604800'])).mediaTicketTtlMs).toBe(604_800_000);
    expect(await usageError(['--media-ticket-ttl', '0'])).toBe('--media-ticket-ttl: must be at least 1 second');
    expect(await usageError(['--media-ticket-ttl', '604801'])).toBe(
      '--media-ticket-ttl: must be at most 604800 seconds (7 days)',
    );
    for (const bad of ['1.5', '--media-ticket-ttl=-5', '1h', '', ' 60']) {
      const argv = bad.startsWith('--') ? [bad] : ['--media-ticket-ttl', bad];
      expect(await usageError(argv), bad).toBe('--media-ticket-ttl: must be a whole number of seconds');
    }
    expect(await usageError(['--media-ticket-ttl'])).toMatch(/--media-ticket-ttl/);
  });

  it('--command-timeout takes whole seconds from 1 to a day', async () => {
    expect((await config(['--command-timeout', '1'])).commandTimeoutMs).toBe(1000);
    expect((await config(['--command-timeout', '86400'])).commandTimeoutMs).toBe(86_400_000);
    expect(await usageError(['--command-timeout', '0'])).toBe('--command-timeout: must be at least 1 second');
    expect(await usageError(['--command-timeout', '86401'])).toBe('--command-timeout: must be at most 86400 seconds (1 day)');
    for (const bad of ['0.5', '--command-timeout=-1', '2m', '', ' 60']) {
      const argv = bad.startsWith('--') ? [bad] : ['--command-timeout', bad];
      expect(await usageError(argv), bad).toBe('--command-timeout: must be a whole number of seconds');
    }
    expect(await usageError(['--command-timeout'])).toMatch(/--command-timeout/);
  });

  it('--max-terminals, --terminal-buffer and --terminal-reap take whole numbers in their ranges', async () => {
    expect((await config(['--max-terminals', '1024'])).maxTerminals).toBe(1024);
    expect(await usageError(['--max-terminals', '0'])).toBe('--max-terminals: must be at least 1 terminal');
    expect(await usageError(['--max-terminals', '1025'])).toBe('--max-terminals: must be at most 1024 terminals (each is a process tree)');
    expect((await config(['--terminal-buffer', '4096'])).terminalRingBytes).toBe(4096);
    expect(await usageError(['--terminal-buffer', '4095'])).toBe('--terminal-buffer: must be at least 4096 bytes');
    expect(await usageError(['--terminal-buffer', '67108865'])).toBe('--terminal-buffer: must be at most 67108864 bytes (64 MiB)');
    expect(await usageError(['--terminal-buffer', '1M'])).toBe('--terminal-buffer: must be a whole number of bytes');
    expect((await config(['--terminal-reap', '1'])).terminalReapMs).toBe(1000);
    expect(await usageError(['--terminal-reap', '604801'])).toBe('--terminal-reap: must be at most 604800 seconds (7 days)');
  });

  it('--command-output-cap takes whole bytes from 1 to 256 MiB', async () => {
    expect((await config(['--command-output-cap', '1'])).commandOutputCap).toBe(1);
    expect((await config(['--command-output-cap', '268435456'])).commandOutputCap).toBe(268_435_456);
    expect(await usageError(['--command-output-cap', '0'])).toBe('--command-output-cap: must be at least 1 byte');
    expect(await usageError(['--command-output-cap', '268435457'])).toBe(
      '--command-output-cap: must be at most 268435456 bytes (256 MiB)',
    );
    for (const bad of ['1.5', '--command-output-cap=-1', '16M', '1e6', '']) {
      const argv = bad.startsWith('--') ? [bad] : ['--command-output-cap', bad];
      expect(await usageError(argv), bad).toBe('--command-output-cap: must be a whole number of bytes');
    }
    expect(await usageError(['--command-output-cap'])).toMatch(/--command-output-cap/);
  });

  it('refuses a --cwd that is missing or not a folder', async () => {
    expect(await usageError(['--cwd', join(dir, 'missing')])).toBe(`--cwd ${join(dir, 'missing')}: no such folder`);
    await writeFile(join(dir, 'file.txt'), 'x');
    expect(await usageError(['--cwd', 'file.txt'])).toBe(`--cwd ${join(dir, 'file.txt')}: not a folder`);
  });

  it('--agents-dir: absent by default; resolved against the current folder to a real path, existing or not', async () => {
    expect((await config([])).agentsDir).toBeUndefined();
    expect((await config(['--agents-dir', 'copies'])).agentsDir).toBe(join(dir, 'copies'));
    await mkdir(join(dir, 'real-copies'));
    await symlink(join(dir, 'real-copies'), join(dir, 'linked'));
    expect((await config(['--agents-dir', 'linked/new/deeper'])).agentsDir).toBe(join(dir, 'real-copies/new/deeper'));
    expect((await config(['--cwd', dir, '--agents-dir', '/tmp/wsapi-agents-elsewhere'])).agentsDir).toBe(
      join(await realpath('/tmp'), 'wsapi-agents-elsewhere'),
    );
  });

  it('refuses an --agents-dir that is the root, above it, a file or empty', async () => {
    await mkdir(join(dir, 'ws'));
    await writeFile(join(dir, 'file'), 'x');
    expect(await usageError(['--cwd', 'ws', '--agents-dir', 'ws'])).toBe(
      `--agents-dir ${join(dir, 'ws')}: must not be the workspace root or a folder above it`,
    );
    expect(await usageError(['--cwd', 'ws', '--agents-dir', '.'])).toBe(
      `--agents-dir ${dir}: must not be the workspace root or a folder above it`,
    );
    expect(await usageError(['--agents-dir', 'file'])).toBe(`--agents-dir ${join(dir, 'file')}: not a folder`);
    expect(await usageError(['--agents-dir', 'file/below'])).toBe(`--agents-dir ${join(dir, 'file/below')}: cannot be read (ENOTDIR)`);
    expect(await usageError(['--agents-dir', ''])).toBe('--agents-dir: must not be empty');
  });

  it('--help wins over everything else', async () => {
    expect(await parseCliArgs(['--help', '--no-auth', '--host', '0.0.0.0'], {}, dir)).toEqual({ help: true });
    expect(await parseCliArgs(['-h'], {}, dir)).toEqual({ help: true });
  });
});
