import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { contentRule, decodeGitText, textRule } from '../../../core/git/git-output-rules.ts';
import type { GitOutput } from '../../../core/git/git-runner.ts';
import { GIT_TEST_ENV, tempRepos } from './temp-repos.ts';

const bytes = (text: string) => new TextEncoder().encode(text);
const output = (code: number, stdout: string | Uint8Array, stderr = ''): GitOutput => ({
  code,
  stdout: typeof stdout === 'string' ? bytes(stdout) : stdout,
  stderr,
});

describe('textRule', () => {
  it.each([
    ['stdout alone, trimmed', output(0, '  hello\n\n'), 'hello'],
    ['stderr alone, trimmed', output(0, '', "Switched to a new branch 'x'\n"), "Switched to a new branch 'x'"],
    ['stdout then stderr on a line break (git ends its lines)', output(0, 'one\n', 'two\n'), 'one\ntwo'],
    ['stdout lines kept inside', output(0, 'a\n\nb\n', ' c \n'), 'a\n\nb\n c'],
    ['an unterminated stdout still breaks the line before stderr', output(0, 'one', 'two'), 'one\ntwo'],
    ['blank stdout and stderr', output(0, ' \n', '\n'), ''],
    ['nothing', output(0, ''), ''],
  ])('exit 0: %s', (_what, given, text) => {
    expect(textRule(given)).toEqual({ ok: true, text });
  });

  it.each([
    ['stderr, trimmed, stdout dropped', output(1, 'partial\n', '\nfatal: bad\n'), 'fatal: bad'],
    ['stdout when stderr is empty', output(1, 'nothing to commit\n'), 'nothing to commit'],
    ['stdout when stderr is only whitespace', output(128, ' out \n', ' \n\t'), 'out'],
    ['both empty', output(2, ''), ''],
  ])('failure: %s', (_what, given, text) => {
    expect(textRule(given)).toEqual({ ok: false, text });
  });

  it('stdout bytes that are not UTF-8 show as U+FFFD', () => {
    expect(textRule(output(0, new Uint8Array([0x61, 0xff, 0x62, 0x0a])))).toEqual({ ok: true, text: 'a\uFFFDb' });
  });

  describe('over real git processes', () => {
    const repo = tempRepos().repo();
    const run = (...args: string[]): GitOutput => {
      const result = spawnSync('git', ['-C', repo.dir, ...args], { env: GIT_TEST_ENV });
      return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr.toString('utf8') };
    };
    repo.write('a.txt', 'a\n');
    repo.commitAll('first');

    it('a success that speaks on stderr only (checkout -b)', () => {
      expect(textRule(run('checkout', '-b', 'topic'))).toEqual({ ok: true, text: "Switched to a new branch 'topic'" });
    });

    it('a failure that speaks on stdout only (commit with nothing to commit)', () => {
      expect(textRule(run('commit', '-m', 'x'))).toEqual({
        ok: false,
        text: 'On branch topic\nnothing to commit, working tree clean',
      });
    });

    it('a failure on stderr (an unknown revision)', () => {
      expect(textRule(run('rev-parse', '--verify', 'nope'))).toEqual({ ok: false, text: 'fatal: Needed a single revision' });
    });

    it('a success on stdout and stderr: stdout first, on its own line (checkout -b --track)', () => {
      expect(textRule(run('checkout', '-b', 'tracking', '--track', 'main'))).toEqual({
        ok: true,
        text: "branch 'tracking' set up to track 'main'.\nSwitched to a new branch 'tracking'",
      });
    });
  });
});

describe('contentRule', () => {
  const repos = tempRepos();
  it('exit 0: stdout exactly, edge whitespace, a last blank context line and a BOM kept', () => {
    const diff = 'diff --git a/f b/f\n@@ -1,2 +1,2 @@\n-a\n+b\n \n';
    expect(contentRule(output(0, diff, 'warning: ignored\n'))).toEqual({ ok: true, text: diff });
    expect(contentRule(output(0, '\uFEFF  text\n\n'))).toEqual({ ok: true, text: '\uFEFF  text\n\n' });
    expect(contentRule(output(0, ''))).toEqual({ ok: true, text: '' });
  });

  it('bad bytes → U+FFFD, one per bad sequence, the rest exact', () => {
    const mixed = new Uint8Array([0x68, 0xc3, 0xa9, 0x20, 0xc3, 0x20, 0xe2, 0x82, 0x0a, 0xf0, 0x9f, 0x98, 0x80, 0x0a]);
    expect(contentRule(output(0, mixed))).toEqual({ ok: true, text: 'hé \uFFFD \uFFFD\n😀\n' });
    expect(decodeGitText(new Uint8Array([0xef, 0xbb, 0xbf, 0x41]))).toBe('\uFEFFA');
  });

  it('a failure answers as the text rule does', () => {
    expect(contentRule(output(128, 'ignored', "fatal: path 'x' does not exist in 'HEAD'\n"))).toEqual({
      ok: false,
      text: "fatal: path 'x' does not exist in 'HEAD'",
    });
    expect(contentRule(output(1, ' only stdout \n'))).toEqual({ ok: false, text: 'only stdout' });
  });

  it('over real git: show HEAD:F gives the file exactly, BOM, CRLF and trailing blank lines', () => {
    const repo = repos.repo();
    const text = '\uFEFF  leading\r\nmiddle\n\n\n';
    repo.write('f.txt', text);
    repo.commitAll('f');
    const result = spawnSync('git', ['-C', repo.dir, 'show', 'HEAD:f.txt'], { env: GIT_TEST_ENV });
    expect(contentRule({ code: result.status!, stdout: result.stdout, stderr: result.stderr.toString() })).toEqual({
      ok: true,
      text,
    });
  });
});
