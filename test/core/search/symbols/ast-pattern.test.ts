import { describe, expect, it } from 'vitest';
import { TreeSitterParsers } from '../../../../adapters/search/tree-sitter-parsers.ts';
import { AstPattern, type AstLineMatch } from '../../../../core/search/symbols/ast-pattern.ts';
import { fixtureText } from './fixture-repo.ts';

const parsers = new TreeSitterParsers();

const FIXTURE_FILES = [
  'src/widgets.ts', 'src/app.tsx', 'src/legacy.js', 'src/components/WidgetCard.vue', 'py/inventory.py',
  'go/main.go', 'rust/src/lib.rs', 'c/ring.c', 'cpp/shapes.cpp', 'java/src/main/java/com/example/WidgetService.java',
  'tests/widgets.spec.ts', 'docs/guide.md',
];

/** `path:line` → the matched texts on that line, over the whole fixture. */
async function matches(pattern: string): Promise<Record<string, string[]>> {
  const compiled = new AstPattern(pattern);
  const found: Record<string, string[]> = {};
  for (const path of FIXTURE_FILES) {
    for (const hit of await compiled.matchFile(parsers, path, await fixtureText(path))) {
      found[`${path}:${hit.line}`] = hit.spans.map((span) => hit.text.slice(span.start, span.end));
    }
  }
  return found;
}

describe('AstPattern: structural patterns, each file in its own language', () => {
  it('console.log($$$) matches every call in TS, TSX, JS and a Vue script, whatever the arguments', async () => {
    expect(await matches('console.log($$$)')).toEqual({
      'src/widgets.ts:25': ["console.log('render', widget.id)"],
      'src/app.tsx:8': ["console.log('widgets', widgets.length)"],
      'src/legacy.js:4': ["console.log('loading', path.basename(file))"],
      'src/components/WidgetCard.vue:16': ["console.log('selected', props.widget.id)"],
    });
  });

  it('$X is one node: console.log($X) matches no call of two arguments, console.log($A, $B) all of them', async () => {
    expect(await matches('console.log($X)')).toEqual({});
    expect(Object.keys(await matches('console.log($A, $B)'))).toEqual([
      'src/widgets.ts:25', 'src/app.tsx:8', 'src/legacy.js:4', 'src/components/WidgetCard.vue:16',
    ]);
  });

  it('useState($$$) matches the call without type arguments (structure, not text)', async () => {
    expect(await matches('useState($$$)')).toEqual({ 'src/app.tsx:6': ['useState(0)'] });
    expect(await matches('useState<$T>($$$)')).toEqual({ 'src/app.tsx:5': ['useState<Widget[]>(defaultWidgets)'] });
  });

  it('fmt.Println($$$) in Go (a bare statement is wrapped in a function body to parse)', async () => {
    expect(await matches('fmt.Println($$$)')).toEqual({
      'go/main.go:26': ['fmt.Println("starting", job.Describe())'],
      'go/main.go:27': ['fmt.Println(MaxWorkers)'],
    });
  });

  it('a statement pattern matches with or without the `;`, in every language that parses it', async () => {
    expect(await matches('return $X')).toEqual({
      'src/widgets.ts:26': ['return `<${label}>`;'],
      'src/widgets.ts:32': ['return Math.min(size, MAX_SIZE);'],
      'src/widgets.ts:44': ['return this.widgets.get(id);'],
      'src/app.tsx:9': ['return ('],
      'src/legacy.js:5': ['return { file, widgets: [] };'],
      'src/legacy.js:14': ['return this.entries[name];'],
      'py/inventory.py:21': ['return len(self.items)'],
      'py/inventory.py:29': ['return sku.strip().lower()'],
      'go/main.go:17': ['return fmt.Sprintf("%d:%s", j.ID, j.Name)'],
      'go/main.go:21': ['return Job{ID: id, Name: name}'],
      'c/ring.c:7': ['return RING_NEXT(r->head) == r->tail;'],
      'c/ring.c:13': ['return -1;'],
      'c/ring.c:16': ['return 0;'],
      'cpp/shapes.cpp:22': ['return M_PI * radius * radius;'],
      'cpp/shapes.cpp:30': ['return 0;'],
      'java/src/main/java/com/example/WidgetService.java:17': ['return "WidgetService(" + names.size() + ")";'],
      'java/src/main/java/com/example/WidgetService.java:26': ['return names.size();'],
      'tests/widgets.spec.ts:9': ['return registry;'],
    });
  });

  it('Python, Java and C patterns; a repeated metavariable must match the same text', async () => {
    expect(await matches('self.items[$K] = $V')).toEqual({ 'py/inventory.py:18': ['self.items[item.sku] = item'] });
    expect(await matches('System.out.println($$$)')).toEqual({
      'java/src/main/java/com/example/WidgetService.java:22': ['System.out.println("added " + name)'],
    });
    expect(await matches('$R->head = RING_NEXT($R->head)')).toEqual({ 'c/ring.c:15': ['r->head = RING_NEXT(r->head)'] });
    expect(await matches('$R->head = RING_NEXT($S->tail)')).toEqual({});
    expect(await matches('Math.min($A, $A)')).toEqual({});
    expect(await matches('Math.min($A, $B)')).toEqual({ 'src/widgets.ts:32': ['Math.min(size, MAX_SIZE)'] });
  });

  it('a multi-line match reports its first line, its span running to the line end; nested matches are not repeated', async () => {
    expect(await matches('it($NAME, $$$)')).toEqual({
      'tests/widgets.spec.ts:13': ["it('upper-cases the label', () => {"],
      'tests/widgets.spec.ts:17': ["it('finds registered widgets', () => {"],
    });
    const nested = new AstPattern('f($X)');
    expect(await nested.matchFile(parsers, 'a.ts', 'f(f(1));\n  f(2); g(f(3))\n')).toEqual<AstLineMatch[]>([
      { line: 1, text: 'f(f(1));', spans: [{ start: 0, end: 7 }] },
      { line: 2, text: '  f(2); g(f(3))', spans: [{ start: 2, end: 6 }, { start: 10, end: 14 }] },
    ]);
  });

  it('spans are UTF-16 offsets into the line', async () => {
    const pattern = new AstPattern('log($X)');
    expect(await pattern.matchFile(parsers, 'a.ts', 'const s = "é😀"; log(s);\n')).toEqual([
      { line: 1, text: 'const s = "é😀"; log(s);', spans: [{ start: 17, end: 23 }] },
    ]);
  });

  it('a pattern that does not parse in a language matches nothing there; files without its words are not parsed', async () => {
    expect(await matches('def $F($$$):')).toEqual({});
    expect(await matches('if (')).toEqual({});
    expect(await matches('   ')).toEqual({});
    const pattern = new AstPattern('console.log($$$)');
    expect(pattern.literals).toEqual(['console', 'log']);
    const counting = { calls: 0, parse: (...args: Parameters<TreeSitterParsers['parse']>) => {
      counting.calls++;
      return parsers.parse(...args);
    } };
    expect(await pattern.matchFile(counting, 'a.ts', 'print(1)\n')).toEqual([]);
    expect(counting.calls).toBe(0);
    expect(await pattern.matchFile(counting, 'notes.md', 'console.log(1)\n')).toEqual([]);
    expect(counting.calls).toBe(0);
  });
});
