/** A run's environment and argument list: plain output, the key, kilo's mode; `--attach` and `-f` placed. */
import { describe, expect, it } from 'vitest';
import { runArgv } from '../../../core/chat/chat-argv.ts';
import { chatEnv, probeEnv } from '../../../core/chat/chat-env.ts';

const PLAIN = {
  NO_COLOR: '1', CLICOLOR: '0', TERM: 'dumb', CI: '1', LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8', PYTHONIOENCODING: 'utf-8', GIT_PAGER: 'cat', PAGER: 'cat',
};

describe('chatEnv', () => {
  it('the daemon environment made plain, colour forcing removed, the key when not blank', () => {
    const base = { PATH: '/bin', FORCE_COLOR: '3', CLICOLOR_FORCE: '1', TERM: 'xterm', KILO_CONFIG_CONTENT: 'daemon' };
    expect(chatEnv(base, { agent: 'opencode', apiKey: 'sk-1' })).toEqual({ PATH: '/bin', KILO_CONFIG_CONTENT: 'daemon', ...PLAIN, OPENROUTER_API_KEY: 'sk-1' });
    expect(chatEnv(base, { agent: 'opencode', apiKey: '  ' })).not.toHaveProperty('OPENROUTER_API_KEY');
  });

  it("kilo's mode: ask and plan as given, any other non-blank mode is code, blank unsets it", () => {
    const mode = (value: string | undefined) => chatEnv({ KILO_CONFIG_CONTENT: 'daemon' }, { agent: 'kilo', mode: value }).KILO_CONFIG_CONTENT;
    expect([mode('ask'), mode('plan'), mode('debug'), mode('code'), mode(''), mode(undefined)]).toEqual([
      '{"mode":"ask"}', '{"mode":"plan"}', '{"mode":"code"}', '{"mode":"code"}', undefined, undefined,
    ]);
  });

  it('the probe gets plain output and nothing of a client', () => {
    expect(probeEnv({ PATH: '/bin', TERM: 'xterm' })).toEqual({ PATH: '/bin', NO_COLOR: '1', TERM: 'dumb', CI: '1' });
  });
});

describe('runArgv', () => {
  it('puts --attach after run, else first, and the attachments after everything', () => {
    const url = 'http://127.0.0.1:4096';
    expect(runArgv(['run', '--format', 'json', 'hi'], url, ['/t/a.txt', '/t/b.png'])).toEqual(['run', '--attach', url, '--format', 'json', 'hi', '-f', '/t/a.txt', '-f', '/t/b.png']);
    expect(runArgv(['chat', 'hi'], url, [])).toEqual(['--attach', url, 'chat', 'hi']);
    expect(runArgv([], url, [])).toEqual(['--attach', url]);
  });
});
