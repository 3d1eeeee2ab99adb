/**
 * Complexity of one file (docs/intentic-projects.md#health): +1 per if and else-if, elif, ternary, for, for-in/of,
 * while, do, case (not default), match arm, catch/except, and each `&&` `||` `??` `and` `or`.
 * - Parsed with the search engine's tree-sitter grammars: JS/TS (and `.vue` scripts), Python, Go, Rust, Java —
 *   the node kinds below, per grammar (an else-if is an `if` nested in the else, so it counts once as an if).
 *   Python's comprehension `for`/`if` clauses count as for and if; each `case` of a Python `match` counts (it is
 *   a match arm; Python has no `default`).
 * - Zero: the data and markup extensions of ZERO_EXTENSIONS (binary and > 1 MiB files are zero in ./file-figures.ts).
 * - Any other text (and a parsed language whose parse failed, or with no parsers on this runtime): the matches
 *   of TEXT_PATTERN.
 */
import type { LanguageId, SyntaxNode } from '../search/symbols/syntax-tree.ts';

export const ZERO_EXTENSIONS: ReadonlySet<string> = new Set([
  '.md', '.mdx', '.rst', '.txt', '.json', '.jsonc', '.yml', '.yaml', '.toml', '.ini', '.lock', '.csv', '.html',
  '.xml', '.svg', '.css', '.scss',
]);

export const TEXT_PATTERN = /\b(if|elif|for|while|case|when|catch|except|rescue)\b|&&|\|\||\?\?/g;

/** The grammars whose trees are counted (C and C++ are parsed for symbols, but counted as other text). */
export type CountedLanguage = Exclude<LanguageId, 'cpp'>;

interface Rules {
  /** Node kinds that add one each. */
  kinds: ReadonlySet<string>;
  /** Node kinds whose `operator` decides (binary and boolean expressions). */
  operatorKinds: ReadonlySet<string>;
  operators: ReadonlySet<string>;
  /** Java: a `switch_label` adds one when it is a `case`, not `default`. */
  caseLabels?: boolean;
}

const JS: Rules = {
  kinds: new Set([
    'if_statement', 'ternary_expression', 'for_statement', 'for_in_statement', 'for_of_statement', 'while_statement',
    'do_statement', 'switch_case', 'catch_clause',
  ]),
  operatorKinds: new Set(['binary_expression']),
  operators: new Set(['&&', '||', '??']),
};

const RULES: Record<CountedLanguage, Rules> = {
  typescript: JS,
  tsx: JS,
  javascript: JS,
  python: {
    kinds: new Set([
      'if_statement', 'elif_clause', 'conditional_expression', 'for_statement', 'while_statement', 'except_clause',
      'except_group_clause', 'case_clause', 'for_in_clause', 'if_clause',
    ]),
    operatorKinds: new Set(['boolean_operator']),
    operators: new Set(['and', 'or']),
  },
  go: {
    kinds: new Set(['if_statement', 'for_statement', 'expression_case', 'type_case', 'communication_case']),
    operatorKinds: new Set(['binary_expression']),
    operators: new Set(['&&', '||']),
  },
  rust: {
    kinds: new Set(['if_expression', 'if_let_expression', 'for_expression', 'while_expression', 'while_let_expression', 'match_arm']),
    operatorKinds: new Set(['binary_expression']),
    operators: new Set(['&&', '||']),
  },
  java: {
    kinds: new Set([
      'if_statement', 'ternary_expression', 'for_statement', 'enhanced_for_statement', 'while_statement', 'do_statement',
      'catch_clause',
    ]),
    operatorKinds: new Set(['binary_expression']),
    operators: new Set(['&&', '||']),
    caseLabels: true,
  },
};

export function isCountedLanguage(language: LanguageId): language is CountedLanguage {
  return language in RULES;
}

/** The complexity of a parsed tree. */
export function treeComplexity(root: SyntaxNode, language: CountedLanguage): number {
  const rules = RULES[language];
  let total = 0;
  const stack: SyntaxNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const type = node.type;
    if (rules.kinds.has(type)) total++;
    else if (rules.operatorKinds.has(type) && rules.operators.has(operatorOf(node))) total++;
    else if (rules.caseLabels && type === 'switch_label' && node.child(0)?.type === 'case') total++;
    for (let i = node.childCount - 1; i >= 0; i--) {
      const child = node.child(i);
      if (child) stack.push(child);
    }
  }
  return total;
}

function operatorOf(node: SyntaxNode): string {
  const operator = node.childForFieldName('operator');
  return operator ? operator.type : '';
}

/** The complexity of other text: matches of TEXT_PATTERN. */
export function textComplexity(text: string): number {
  let total = 0;
  for (const _match of text.matchAll(TEXT_PATTERN)) total++;
  return total;
}

/** `.md` for `docs/a.MD`; '' without an extension (a leading dot is a name, not an extension). */
export function extensionOf(path: string): string {
  const base = path.slice(path.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return dot <= 0 ? '' : base.slice(dot).toLowerCase();
}
