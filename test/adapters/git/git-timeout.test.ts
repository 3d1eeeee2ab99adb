import { describe, expect, it } from 'vitest';
import { gitSubcommand, gitTimeoutSeconds, parseGitTimeoutSetting } from '../../../adapters/git/git-timeout.ts';

describe('git deadlines', () => {
  it('reads WORKSPACE_GIT_TIMEOUT as positive decimal seconds, anything else as unset', () => {
    const parsed = Object.fromEntries(
      ['30', ' 45 ', '0.5', '.25', '7.', '0', '0.0', '-5', '', ' ', '10s', '1e3', '0x10', 'Infinity', 'NaN', '99999999999'].map((value) => [
        value,
        parseGitTimeoutSetting(value),
      ]),
    );
    expect(parsed).toEqual({
      '30': 30,
      ' 45 ': 45,
      '0.5': 0.5,
      '.25': 0.25,
      '7.': 7,
      '0': undefined,
      '0.0': undefined,
      '-5': undefined,
      '': undefined,
      ' ': undefined,
      '10s': undefined,
      '1e3': undefined,
      '0x10': undefined,
      Infinity: undefined,
      NaN: undefined,
      // Clamped to setTimeout's range (2^31 - 1 ms): beyond it, a timer fires at once.
      '99999999999': 2147483,
    });
    expect(parseGitTimeoutSetting(undefined)).toBe(undefined);
  });

  it('is 120 s, 600 s for clone/fetch/pull/push, and the setting for every subcommand when it is valid', () => {
    const subs = ['status', 'clone', 'fetch', 'pull', 'push', 'ls-remote', ''];
    const table = (env: NodeJS.ProcessEnv) => subs.map((sub) => gitTimeoutSeconds(sub, env));
    expect(table({})).toEqual([120, 600, 600, 600, 600, 120, 120]);
    expect(table({ WORKSPACE_GIT_TIMEOUT: '5' })).toEqual([5, 5, 5, 5, 5, 5, 5]);
    expect(table({ WORKSPACE_GIT_TIMEOUT: 'soon' })).toEqual([120, 600, 600, 600, 600, 120, 120]);
  });

  it('finds the subcommand after git’s global options', () => {
    const cases: [string[], string][] = [
      [['status', '-z'], 'status'],
      [['-c', 'core.quotepath=off', 'clone', '--', 'u', 'd'], 'clone'],
      [['--literal-pathspecs', '-c', 'a=b', 'push'], 'push'],
      [['-C', 'dir', '--no-pager', 'fetch', '--all'], 'fetch'],
      [['--git-dir', 'x', '--work-tree=y', 'pull'], 'pull'],
      [['--config-env', 'a=B', 'log'], 'log'],
      [['-c', 'clone'], ''],
      [['--version'], ''],
      [[], ''],
    ];
    expect(cases.map(([args]) => gitSubcommand(args))).toEqual(cases.map(([, sub]) => sub));
  });
});
