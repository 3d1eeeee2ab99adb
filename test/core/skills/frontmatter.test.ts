import { describe, expect, it } from 'vitest';
import { parseFrontmatter } from '../../../core/skills/frontmatter.ts';

/** The parsed keys as a plain object (null when there is no frontmatter). */
function fm(...lines: string[]): Record<string, string> | null {
  const parsed = parseFrontmatter(lines.join('\n'));
  return parsed === null ? null : Object.fromEntries(parsed);
}

describe('parseFrontmatter: the block', () => {
  it('reads plain key: value pairs between the two --- lines', () => {
    expect(fm('---', 'name: quality', 'description: Audit code quality with qlty.', '---', '# Body')).toEqual({
      name: 'quality',
      description: 'Audit code quality with qlty.',
    });
  });

  it('has no frontmatter unless the very first line is ---', () => {
    expect(fm('', '---', 'name: x', '---')).toBeNull();
    expect(fm('# Title', '---', 'name: x', '---')).toBeNull();
    expect(fm('----', 'name: x', '---')).toBeNull();
    expect(fm(' ---', 'name: x', '---')).toBeNull();
    expect(parseFrontmatter('')).toBeNull();
  });

  it('has no frontmatter when the block is never closed', () => {
    expect(fm('---', 'name: x', 'description: y')).toBeNull();
    expect(fm('---', 'name: x', '--- not a delimiter', '----')).toBeNull();
  });

  it('ends at the first closing ---; later key lines are body text', () => {
    expect(fm('---', 'name: a', '---', 'description: body', '---')).toEqual({ name: 'a' });
  });

  it('accepts an empty block and tolerates trailing blanks on the delimiters', () => {
    expect(fm('---', '---')).toEqual({});
    expect(fm('--- \t', 'name: x', '---  ')).toEqual({ name: 'x' });
  });

  it('handles CRLF and lone-CR line endings and a leading BOM', () => {
    const expected = { name: 'crlf', description: 'line one\nline two\n' };
    expect(Object.fromEntries(parseFrontmatter('---\r\nname: crlf\r\ndescription: |\r\n  line one\r\n  line two\r\n---\r\nbody')!)).toEqual(expected);
    expect(Object.fromEntries(parseFrontmatter('---\rname: cr\r---\r')!)).toEqual({ name: 'cr' });
    expect(Object.fromEntries(parseFrontmatter('\uFEFF---\nname: bom\n---\n')!)).toEqual({ name: 'bom' });
  });
});

describe('parseFrontmatter: keys', () => {
  it('takes keys matching ^[A-Za-z][\\w-]*: and ignores every other line', () => {
    expect(
      fm(
        '---',
        'allowed-tools: Read, Grep',
        'x_1: a',
        '1abc: no',
        '_private: no',
        '-dash: no',
        '"quoted": no',
        'name : no',
        '# comment: no',
        '- list: no',
        '  indented: no',
        '---',
      ),
    ).toEqual({ 'allowed-tools': 'Read, Grep', x_1: 'a' });
  });

  it('needs no space after the colon and splits at the first colon', () => {
    expect(fm('---', 'name:tight', 'description: see: http://example.com/a:b', '---')).toEqual({
      name: 'tight',
      description: 'see: http://example.com/a:b',
    });
  });

  it('ignores nested mappings and the continuation lines of plain values', () => {
    expect(fm('---', 'metadata:', '  name: nested', 'description: first line', '  continued here', '---')).toEqual({
      metadata: '',
      description: 'first line',
    });
  });

  it('keeps the last value of a repeated key', () => {
    expect(fm('---', 'name: one', 'name: two', '---')).toEqual({ name: 'two' });
  });
});

describe('parseFrontmatter: scalar values', () => {
  it('trims plain values and drops a trailing YAML comment', () => {
    expect(fm('---', 'name:   spaced out   ', 'description: Fix issue #12 # why', 'a: C# and F#', 'b: # only a comment', '---')).toEqual({
      name: 'spaced out',
      description: 'Fix issue',
      a: 'C# and F#',
      b: '',
    });
  });

  it('unquotes single-quoted values (two quotes are one)', () => {
    expect(fm('---', "name: 'it''s here'", "description: '  # not a comment: keep  '", '---')).toEqual({
      name: "it's here",
      description: '  # not a comment: keep  ',
    });
  });

  it('unquotes double-quoted values with YAML escapes', () => {
    expect(fm('---', String.raw`name: "say \"hi\""`, String.raw`description: "tab\there\nnew \\ \u00e9\x41 \q"`, '---')).toEqual({
      name: 'say "hi"',
      description: 'tab\there\nnew \\ éA \\q',
    });
  });

  it('allows a comment after the closing quote, and keeps empty quotes empty', () => {
    expect(fm('---', 'name: "x" # note', "description: ''", '---')).toEqual({ name: 'x', description: '' });
  });

  it('keeps a value as written when its quote is not closed or is followed by text', () => {
    expect(fm('---', 'name: "open', "description: 'a' b", '---')).toEqual({ name: '"open', description: "'a' b" });
  });

  it('does not treat quote characters inside a plain value as quoting', () => {
    expect(fm('---', `description: Don't "panic"`, '---')).toEqual({ description: `Don't "panic"` });
  });
});

describe('parseFrontmatter: block scalars', () => {
  it('| keeps the indented lines, joined with \\n, with one trailing newline (clip)', () => {
    expect(fm('---', 'description: |', '  first', '    indented more', '  last', 'name: x', '---')).toEqual({
      description: 'first\n  indented more\nlast\n',
      name: 'x',
    });
  });

  it('> folds the indented lines with spaces, with one trailing newline (clip)', () => {
    expect(fm('---', 'description: >', '  Audit code', '  quality with', '  qlty.', 'name: x', '---')).toEqual({
      description: 'Audit code quality with qlty.\n',
      name: 'x',
    });
  });

  it('> turns an empty line into a line break and keeps more-indented lines', () => {
    expect(fm('---', 'description: >', '  para one', '  continues', '', '  para two', '    code line', '  after', '---')).toEqual({
      description: 'para one continues\npara two\n  code line\nafter\n',
    });
  });

  it('- strips the final newline, + keeps trailing empty lines', () => {
    expect(fm('---', 'a: |-', '  x', '  y', '', 'b: >-', '  x', '  y', 'c: |+', '  x', '', '', 'd: >+', '  x', '---')).toEqual({
      a: 'x\ny',
      b: 'x y',
      c: 'x\n\n\n',
      d: 'x\n',
    });
  });

  it('drops trailing empty lines when clipping, keeps inner ones in a literal', () => {
    expect(fm('---', 'description: |', '  a', '', '  b', '', '', '---')).toEqual({ description: 'a\n\nb\n' });
  });

  it('honours an explicit indentation indicator and a header comment', () => {
    expect(fm('---', 'a: |2', '    deeper', '  base', 'b: >- # folded', '  one', '  two', '---')).toEqual({
      a: '  deeper\nbase\n',
      b: 'one two',
    });
  });

  it('is empty when no indented line follows', () => {
    expect(fm('---', 'description: >', 'name: x', '---')).toEqual({ description: '', name: 'x' });
    expect(fm('---', 'description: |', '---')).toEqual({ description: '' });
  });

  it('ends the block at the first non-indented line; keys after it are read', () => {
    expect(fm('---', 'description: |', '  body: not a key', 'name: after', '---')).toEqual({
      description: 'body: not a key\n',
      name: 'after',
    });
  });

  it('treats "|" inside quotes as a plain value, not a block', () => {
    expect(fm('---', 'description: "|"', '  ignored', '---')).toEqual({ description: '|' });
  });
});
