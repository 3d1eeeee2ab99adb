/**
 * Complexity, symbols, exports and imports of one file (core/health/file-figures.ts) with the search engine's
 * real tree-sitter grammars: each language's counting rules on small sources, counted by hand.
 */
import { describe, expect, it } from 'vitest';
import { TreeSitterParsers } from '../../../adapters/search/tree-sitter-parsers.ts';
import { textComplexity } from '../../../core/health/complexity.ts';
import { fileFigures } from '../../../core/health/file-figures.ts';

const parsers = new TreeSitterParsers();
const bytes = (text: string) => new TextEncoder().encode(text);
const complexityOf = async (path: string, text: string) => (await fileFigures(path, bytes(text), parsers)).complexity;

describe('complexity from the parsers', () => {
  it('TypeScript: if, else-if, ternary, for, for-in, for-of, while, do, case (not default), catch, && || ??', async () => {
    const source = [
      "import { a } from './a.js';",
      'export function f(a: number, b: boolean, c?: string) {',
      '  if (a && b || c ?? false) { return 1; } else if (a > 2) { return 2; } else { return 3; }', // if, else-if, &&, ||, ?? = 5
      '  const t = a ? 1 : 2;', // 1
      '  for (let i = 0; i < 2; i++) {}', // 1
      '  for (const k in {}) {}', // 1
      '  for (const v of []) {}', // 1
      '  while (false) {}', // 1
      '  do {} while (false);', // 1
      '  switch (a) { case 1: break; case 2: break; default: break; }', // 2
      '  try {} catch (e) {}', // 1
      "  // if && || in a comment, and in a string: 'if (a && b)'",
      '  let x = 0; x &&= 1;',
      '}',
    ].join('\n');
    expect(await complexityOf('src/f.ts', source)).toBe(14);
    expect(await fileFigures('src/f.ts', bytes(source), parsers)).toEqual({
      complexity: 14,
      symbols: 1,
      exports: 1,
      imports: ['./a.js'],
      generated: false,
    });
  });

  it('JavaScript and TSX use the same rules; a .vue file counts its script blocks only', async () => {
    expect(await complexityOf('a.js', 'const f = (a) => a ? (b || c) : d;\n')).toBe(2);
    expect(await complexityOf('a.tsx', 'export const C = (p: {a?: boolean}) => p.a && <div>if</div>;\n')).toBe(1);
    const vue = '<template><p v-if="a && b">if while for</p></template>\n<script setup lang="ts">\nif (x) { y(); }\n</script>\n';
    expect(await complexityOf('App.vue', vue)).toBe(1);
  });

  it('Python: if, elif, ternary, for, while, except, each match case, and/or, comprehension for and if', async () => {
    const source = [
      'def f(a, b):',
      '    if a and b or a:', // if, and, or = 3
      '        pass',
      '    elif b:', // 1
      '        pass',
      '    else:',
      '        pass',
      '    x = 1 if a else 2', // 1
      '    for i in range(3):', // 1
      '        pass',
      '    while False:', // 1
      '        pass',
      '    try:',
      '        pass',
      '    except ValueError:', // 1
      '        pass',
      '    match a:',
      '        case 1:', // 1
      '            pass',
      '        case _:', // 1
      '            pass',
      '    return [i for i in b if i]', // for, if = 2
      '',
    ].join('\n');
    expect(await complexityOf('m.py', source)).toBe(12);
  });

  it('Go: if, else-if, for (range too), expression, type and select cases (not default), && ||', async () => {
    const source = [
      'package m',
      'func F(a int, b bool, v any, c chan int) {',
      '  if a > 1 && b || !b {} else if a == 0 {}', // if, &&, ||, else-if = 4
      '  for i := range []int{} { _ = i }', // 1
      '  for {}', // 1
      '  switch a { case 1: ; case 2: ; default: }', // 2
      '  switch v.(type) { case int: ; default: }', // 1
      '  select { case <-c: ; default: }', // 1
      '}',
      '',
    ].join('\n');
    expect(await complexityOf('m.go', source)).toBe(10);
  });

  it('Rust: if, else-if, if let, for, while, while let, each match arm, && || (loop is not counted)', async () => {
    const source = [
      'pub fn f(a: i32, b: bool, o: Option<i32>) {',
      '    if a > 1 && b || !b {} else if a == 0 {}', // 4
      '    if let Some(x) = o { let _ = x; }', // 1
      '    for i in 0..2 { let _ = i; }', // 1
      '    while false {}', // 1
      '    while let Some(_) = o { break; }', // 1
      '    loop { break; }',
      '    match a { 1 => {}, 2 => {}, _ => {} }', // 3
      '}',
      '',
    ].join('\n');
    expect(await complexityOf('lib.rs', source)).toBe(11);
  });

  it('Java: if, else-if, ternary, for, for-each, while, do, case labels (not default) in both switch forms, catch, && ||', async () => {
    const source = [
      'class A {',
      '  int f(int a, boolean b) {',
      '    if (a > 1 && b || !b) {} else if (a == 0) {}', // 4
      '    int t = a > 0 ? 1 : 2;', // 1
      '    for (int i = 0; i < 2; i++) {}', // 1
      '    for (int i : new int[0]) {}', // 1
      '    while (false) {}', // 1
      '    do {} while (false);', // 1
      '    switch (a) { case 1: break; default: break; }', // 1
      '    int r = switch (a) { case 1 -> 2; case 2 -> 3; default -> 4; };', // 2
      '    try {} catch (Exception e) {}', // 1
      '    return t + r;',
      '  }',
      '}',
      '',
    ].join('\n');
    expect(await complexityOf('A.java', source)).toBe(13);
  });
});

describe('complexity without a grammar', () => {
  it('other text counts the pattern: keywords as words, && || ?? anywhere', async () => {
    const ruby = 'if a && b\n  x\nelsif c\nend\nwhile d do; end\ncase e\nwhen 1 then 2\nend\nbegin; rescue; end\nnotif iffy\n';
    // if, &&, while, case, when, rescue = 6 (elsif, notif, iffy are not the words)
    expect(await complexityOf('a.rb', ruby)).toBe(6);
    expect(textComplexity('a ?? b || c && d; for; except; catch; elif')).toBe(7);
    // C is parsed for symbols only: its complexity is the pattern's.
    expect(await complexityOf('a.c', 'int f(int a) { if (a && a) { for (;;) {} } return 0; }\n')).toBe(3);
  });

  it('zero for the data and markup extensions, binary files and files over 1 MiB', async () => {
    for (const ext of ['md', 'mdx', 'rst', 'txt', 'json', 'jsonc', 'yml', 'yaml', 'toml', 'ini', 'lock', 'csv', 'html', 'xml', 'svg', 'css', 'scss']) {
      expect(await complexityOf(`x.${ext}`, 'if (a && b) { while (c) {} }\n')).toBe(0);
    }
    expect(await complexityOf('blob.sh', 'if a && b\0\n')).toBe(0);
    expect((await fileFigures('big.ts', undefined, parsers)).complexity).toBe(0);
    expect(await complexityOf('big.ts', 'if (a) {}\n'.repeat(110_000))).toBe(0); // 1.1 MB of text
  });

  it('without parsers the JS rules fall back to the pattern and the symbols to the heuristics', async () => {
    const figures = await fileFigures('a.ts', bytes("import x from './x';\nexport function f() { if (a) {} }\n"), undefined);
    expect(figures).toEqual({ complexity: 1, symbols: 1, exports: 1, imports: ['./x'], generated: false });
  });
});

describe('symbols, exports and generated files', () => {
  it('exported: `export` (TS), capitalised (Go), `pub` (Rust), no leading `_` (Python)', async () => {
    const figures = async (path: string, text: string) => {
      const { symbols, exports } = await fileFigures(path, bytes(text), parsers);
      return { symbols, exports };
    };
    // The search engine's rule: a method of an exported class is exported with it (a, C, C.m, T).
    expect(await figures('a.ts', 'export function a() {}\nfunction b() {}\nexport class C { m() {} }\nexport type T = 1;\nconst d = 1;\n')).toEqual({ symbols: 6, exports: 4 });
    expect(await figures('a.go', 'package a\nfunc A() {}\nfunc b() {}\ntype T struct{}\n')).toEqual({ symbols: 3, exports: 2 });
    expect(await figures('a.rs', 'pub fn a() {}\nfn b() {}\npub struct S;\n')).toEqual({ symbols: 3, exports: 2 });
    expect(await figures('a.py', 'def a():\n    pass\ndef _b():\n    pass\nX = 1\n')).toEqual({ symbols: 3, exports: 2 });
  });

  it('generated: a generated/ folder, .generated. in the name, an @generated header', async () => {
    const gen = async (path: string, text = 'export const a = 1;\n') => (await fileFigures(path, bytes(text), parsers)).generated;
    expect(await gen('src/generated/a.ts')).toBe(true);
    expect(await gen('src/a.generated.ts')).toBe(true);
    expect(await gen('src/a.ts', '// @generated by protoc\nexport const a = 1;\n')).toBe(true);
    expect(await gen('src/a.ts')).toBe(false);
    expect(await gen('src/generatedish/a.ts')).toBe(false);
  });
});

describe('C and C++', () => {
  it('are parsed for their symbols, counted by the text pattern', async () => {
    const figures = await fileFigures('a.c', bytes('struct s { int a; };\nint f(int a) { if (a) return 1; return 0; }\nstatic int g(void) { return 0; }\n'), parsers);
    // The search engine's C rule: what is not `static` is exported (s, f; not g).
    expect(figures).toEqual({ complexity: 1, symbols: 3, exports: 2, imports: [], generated: false });
  });
});
