/**
 * The `ast` mode (docs/intentic-search.md): a syntax pattern matched structurally against parsed files, as ast-grep
 * does. `$X` (a capital name) matches one named node, and the same name twice must match the same text; `$_`
 * matches one node without binding; `$$$` (or `$$$ARGS`) matches any run of sibling nodes, none included.
 * The route names no language, so the pattern is parsed in each file's own: a pattern that does not parse
 * cleanly there (even wrapped in a function body, for languages whose files cannot hold a bare statement)
 * matches nothing in that language.
 *
 * How: metavariables become placeholder identifiers, the pattern is parsed, and its node is the innermost one
 * spanning exactly the pattern's text (so `console.log($X)` is a call, not the statement around it). A file's
 * tree is then walked; a node whose type is the pattern's is compared child by child (comments and `;`
 * skipped, other anonymous tokens such as operators and brackets compared too). A match's descendants are not reported again.
 */
import type { Span } from '../answer.ts';
import { parseSource } from './parse-source.ts';
import { sourceLanguageOf } from './source-language.ts';
import type { LanguageId, ParserAdapter, SyntaxNode } from './syntax-tree.ts';

export interface AstLineMatch {
  /** 1-based: the first line of the match. */
  line: number;
  /** The line (without its line break). */
  text: string;
  /** Every match starting on this line, as UTF-16 offsets into `text` (to the line's end for a multi-line one). */
  spans: Span[];
}

interface PatternNode {
  type: string;
  text: string;
  children: PatternNode[];
  meta?: { multi: boolean; name?: string };
}

const METAVARIABLE = /\$\$\$([A-Z_][A-Z0-9_]*)?|\$([A-Z_][A-Z0-9_]*)/g;
const PLACEHOLDER = /^__ast_(multi|one)_([A-Za-z0-9_]+?)_(\d+)$/;
/** Left out of both sides' children: comments, and `;` (optional in some grammars, so it carries no structure). */
const SKIPPED = new Set(['comment', 'line_comment', 'block_comment', ';']);
/** A pathological pattern and file pair gives up after this many comparisons (a bound on backtracking). */
const MAX_STEPS_PER_FILE = 2_000_000;

interface Wrapper {
  prefix: string;
  suffix: string;
}

const BARE: Wrapper = { prefix: '', suffix: '' };
const WRAPPERS: Partial<Record<LanguageId, Wrapper[]>> = {
  go: [{ prefix: 'package p\nfunc _() {\n', suffix: '\n}\n' }],
  java: [{ prefix: 'class _P { void _p() {\n', suffix: '\n} }\n' }],
  cpp: [{ prefix: 'void _p() {\n', suffix: '\n}\n' }],
};

export class AstPattern {
  readonly source: string;
  /** Words every match's text holds: a file without all of them cannot match (a prefilter for callers too). */
  readonly literals: readonly string[];
  readonly #placeholderSource: string;
  readonly #compiled = new Map<LanguageId, Promise<PatternNode | undefined>>();

  constructor(pattern: string) {
    this.source = pattern;
    let counter = 0;
    this.#placeholderSource = pattern.replace(METAVARIABLE, (match, multiName?: string, oneName?: string) => {
      const multi = match.startsWith('$$$');
      const name = multi ? (multiName ?? '_') : oneName!;
      return `__ast_${multi ? 'multi' : 'one'}_${name}_${counter++}`;
    });
    const words = pattern.replace(METAVARIABLE, ' ').match(/[A-Za-z_]\w*/g) ?? [];
    this.literals = [...new Set(words)];
  }

  /** The pattern as a tree of `language`, or undefined when it does not parse cleanly there. */
  compile(parsers: ParserAdapter, language: LanguageId): Promise<PatternNode | undefined> {
    let compiled = this.#compiled.get(language);
    if (!compiled) {
      compiled = this.#compile(parsers, language);
      this.#compiled.set(language, compiled);
    }
    return compiled;
  }

  async #compile(parsers: ParserAdapter, language: LanguageId): Promise<PatternNode | undefined> {
    const body = this.#placeholderSource.trim();
    if (body === '') return undefined;
    for (const wrapper of [BARE, ...(WRAPPERS[language] ?? [])]) {
      for (const terminator of ['', ';']) {
        const text = wrapper.prefix + body + terminator + wrapper.suffix;
        const tree = await parsers.parse(language, text);
        if (!tree) return undefined;
        try {
          if (tree.rootNode.hasError) continue;
          const start = wrapper.prefix.length;
          const node = exactNode(tree.rootNode, start, start + body.length, terminator.length);
          if (node) return toPatternNode(node);
        } finally {
          tree.delete();
        }
      }
    }
    return undefined;
  }

  /** The lines of `text` (the file at `path`) where the pattern matches, in line order. */
  async matchFile(parsers: ParserAdapter, path: string, text: string): Promise<AstLineMatch[]> {
    if (!this.literals.every((word) => text.includes(word))) return [];
    const language = sourceLanguageOf(path);
    if (language === undefined) return [];
    const grammar = language === 'vue' ? 'typescript' : language;
    const pattern = await this.compile(parsers, grammar);
    if (!pattern) return [];
    const parsed = await parseSource(parsers, path, text);
    if (!parsed) return [];
    try {
      const actual = parsed.language === grammar ? pattern : await this.compile(parsers, parsed.language);
      if (!actual) return [];
      const matches: SyntaxNode[] = [];
      findMatches(parsed.tree.rootNode, actual, matches, { steps: 0 });
      return toLineMatches(matches, text);
    } finally {
      parsed.tree.delete();
    }
  }
}

/** The innermost node spanning exactly [start, end) (or that plus the `;` added to make it parse). */
function exactNode(root: SyntaxNode, start: number, end: number, extra: number): SyntaxNode | undefined {
  let best: SyntaxNode | undefined;
  let current: SyntaxNode | undefined = root;
  while (current) {
    if (current !== root && current.startIndex === start && (current.endIndex === end || current.endIndex === end + extra)) {
      best = current;
    }
    let next: SyntaxNode | undefined;
    for (let i = 0; i < current.childCount; i++) {
      const child = current.child(i);
      if (child && child.startIndex <= start && child.endIndex >= end) {
        next = child;
        break;
      }
    }
    current = next;
  }
  return best;
}

function toPatternNode(node: SyntaxNode): PatternNode {
  const placeholder = PLACEHOLDER.exec(node.text.replace(/;$/, '').trim());
  if (placeholder && node.isNamed) {
    const name = placeholder[2] === '_' ? undefined : placeholder[2];
    return { type: node.type, text: node.text, children: [], meta: { multi: placeholder[1] === 'multi', name } };
  }
  const children: PatternNode[] = [];
  for (let i = 0; i < node.childCount; i++) {
    const child = node.child(i);
    if (child && !SKIPPED.has(child.type)) children.push(toPatternNode(child));
  }
  return { type: node.type, text: node.childCount === 0 ? node.text : '', children };
}

interface Budget {
  steps: number;
}

function findMatches(node: SyntaxNode, pattern: PatternNode, found: SyntaxNode[], budget: Budget): void {
  if (budget.steps > MAX_STEPS_PER_FILE) return;
  if ((pattern.meta ? node.isNamed : node.type === pattern.type) && matchNode(pattern, node, new Map(), budget)) {
    found.push(node);
    return;
  }
  for (let i = 0; i < node.childCount; i++) {
    const child = node.child(i);
    if (child) findMatches(child, pattern, found, budget);
  }
}

function matchNode(pattern: PatternNode, node: SyntaxNode, bindings: Map<string, string>, budget: Budget): boolean {
  if (++budget.steps > MAX_STEPS_PER_FILE) return false;
  if (pattern.meta) {
    if (!node.isNamed) return false;
    return bind(bindings, pattern.meta.name, node.text);
  }
  if (pattern.type !== node.type) return false;
  if (pattern.children.length === 0) return node.childCount === 0 ? pattern.text === node.text : false;
  const children: SyntaxNode[] = [];
  for (let i = 0; i < node.childCount; i++) {
    const child = node.child(i);
    // A zero-width leaf is a token the parser supplied (MISSING): the pattern never has one.
    if (child && !SKIPPED.has(child.type) && !(child.childCount === 0 && child.startIndex === child.endIndex)) children.push(child);
  }
  return matchSequence(pattern.children, 0, children, 0, bindings, budget);
}

function matchSequence(
  patterns: PatternNode[], i: number, nodes: SyntaxNode[], j: number, bindings: Map<string, string>, budget: Budget,
): boolean {
  if (i === patterns.length) return j === nodes.length;
  const pattern = patterns[i]!;
  if (pattern.meta?.multi) {
    for (let k = j; k <= nodes.length; k++) {
      const saved = new Map(bindings);
      const run = nodes.slice(j, k).map((node) => node.text).join(' ');
      if (bind(bindings, pattern.meta.name, run) && matchSequence(patterns, i + 1, nodes, k, bindings, budget)) return true;
      restore(bindings, saved);
      if (budget.steps > MAX_STEPS_PER_FILE) return false;
    }
    return false;
  }
  if (j === nodes.length) return false;
  const saved = new Map(bindings);
  if (matchNode(pattern, nodes[j]!, bindings, budget) && matchSequence(patterns, i + 1, nodes, j + 1, bindings, budget)) {
    return true;
  }
  restore(bindings, saved);
  return false;
}

/** Binds a named metavariable, or checks it against its earlier binding. */
function bind(bindings: Map<string, string>, name: string | undefined, text: string): boolean {
  if (name === undefined) return true;
  const bound = bindings.get(name);
  if (bound === undefined) {
    bindings.set(name, text);
    return true;
  }
  return bound === text;
}

function restore(bindings: Map<string, string>, saved: Map<string, string>): void {
  bindings.clear();
  for (const [key, value] of saved) bindings.set(key, value);
}

function toLineMatches(matches: SyntaxNode[], text: string): AstLineMatch[] {
  const lines = text.split('\n');
  const byLine = new Map<number, AstLineMatch>();
  for (const node of matches) {
    const row = node.startPosition.row;
    const lineText = (lines[row] ?? '').replace(/\r$/, '');
    const end = node.endPosition.row === row ? node.endPosition.column : lineText.length;
    let hit = byLine.get(row);
    if (!hit) {
      hit = { line: row + 1, text: lineText, spans: [] };
      byLine.set(row, hit);
    }
    hit.spans.push({ start: node.startPosition.column, end: Math.min(end, lineText.length) });
  }
  return [...byLine.values()].sort((a, b) => a.line - b.line).map((hit) => ({
    ...hit,
    spans: hit.spans.sort((a, b) => a.start - b.start),
  }));
}
