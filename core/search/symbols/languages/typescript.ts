/**
 * Definitions in TypeScript, TSX and JavaScript (one set of rules: the grammars share their node names).
 * - `function` → fn; a module-level `const`/`let`/`var` → fn when it holds an arrow or function expression,
 *   else const (local variables are not symbols; nested function and class declarations are).
 * - `class` → class, its methods and function-valued fields → method; `interface`, `type`, `enum` → type;
 *   namespaces are walked as module scopes.
 * - exported: under `export`, or named in a local `export { … }` list. A method is exported when its class is
 *   and it is not `private`/`protected`/`#private`.
 */
import { childrenOf, namedChildrenOf, type Definition } from './definition.ts';
import type { SyntaxNode } from '../syntax-tree.ts';

interface Scope {
  exported: boolean;
  /** Module level (a file or a namespace body), where variables are symbols. */
  moduleLevel: boolean;
}

const FUNCTION_VALUES = new Set(['arrow_function', 'function_expression', 'function', 'generator_function']);
const FUNCTION_DECLARATIONS = new Set(['function_declaration', 'generator_function_declaration']);
const CLASS_DECLARATIONS = new Set(['class_declaration', 'abstract_class_declaration']);
const TYPE_DECLARATIONS = new Set(['interface_declaration', 'type_alias_declaration', 'enum_declaration']);

export function collectTypeScriptDefinitions(root: SyntaxNode): Definition[] {
  const found: Definition[] = [];
  const listed = new Set<string>();
  const moduleLevel: Definition[] = [];
  walkStatements(root, { exported: false, moduleLevel: true }, found, listed, moduleLevel);
  for (const definition of moduleLevel) if (listed.has(definition.name)) definition.exported = true;
  return found;
}

function walkStatements(
  container: SyntaxNode, scope: Scope, found: Definition[], listed: Set<string>, moduleLevel: Definition[],
): void {
  for (const node of namedChildrenOf(container)) statement(node, node, scope, found, listed, moduleLevel);
}

function statement(
  node: SyntaxNode, outer: SyntaxNode, scope: Scope, found: Definition[], listed: Set<string>,
  moduleLevel: Definition[],
): void {
  const add = (definition: Definition) => {
    found.push(definition);
    if (scope.moduleLevel) moduleLevel.push(definition);
  };
  const inner: Scope = { exported: false, moduleLevel: false };
  if (node.type === 'export_statement') {
    const declaration = node.childForFieldName('declaration');
    if (declaration) statement(declaration, node, { ...scope, exported: true }, found, listed, moduleLevel);
    else if (!node.childForFieldName('source')) collectExportList(node, listed);
  } else if (FUNCTION_DECLARATIONS.has(node.type)) {
    const name = node.childForFieldName('name');
    if (name) add({ name: name.text, kind: 'fn', node: outer, exported: scope.exported });
    walkBody(node.childForFieldName('body'), inner, found, listed, moduleLevel);
  } else if (CLASS_DECLARATIONS.has(node.type)) {
    const name = node.childForFieldName('name');
    if (!name) return;
    add({ name: name.text, kind: 'class', node: outer, exported: scope.exported });
    const body = node.childForFieldName('body');
    if (body) classMembers(body, scope.exported, found);
  } else if (TYPE_DECLARATIONS.has(node.type)) {
    const name = node.childForFieldName('name');
    if (name) add({ name: name.text, kind: 'type', node: outer, exported: scope.exported });
  } else if (node.type === 'lexical_declaration' || node.type === 'variable_declaration') {
    const declarators = namedChildrenOf(node).filter((child) => child.type === 'variable_declarator');
    for (const [at, declarator] of declarators.entries()) {
      const name = declarator.childForFieldName('name');
      const value = declarator.childForFieldName('value');
      const holdsFunction = value !== null && FUNCTION_VALUES.has(value.type);
      if (scope.moduleLevel && name?.type === 'identifier') {
        // Each variable spans its own initializer (a hit in `a`'s of `const a = […], b = […]` is in `a`); the
        // first starts with the statement, so it shows it (`export const …`), a later one its own line.
        const head = at === 0 ? outer : declarator;
        add({ name: name.text, kind: holdsFunction ? 'fn' : 'const', node: declarator, head, exported: scope.exported });
      }
      if (holdsFunction) walkBody(value.childForFieldName('body'), inner, found, listed, moduleLevel);
    }
  } else if (node.type === 'ambient_declaration') {
    for (const child of namedChildrenOf(node)) statement(child, outer, scope, found, listed, moduleLevel);
  } else if (node.type === 'internal_module' || node.type === 'module') {
    const body = node.childForFieldName('body');
    if (body) walkStatements(body, { exported: false, moduleLevel: scope.moduleLevel }, found, listed, []);
  } else if (node.type === 'expression_statement') {
    // `namespace X { … }` parses as an expression statement holding the namespace.
    const only = node.namedChild(0);
    if (only?.type === 'internal_module') statement(only, outer, scope, found, listed, moduleLevel);
  }
}

/** A function's body, for the functions and classes declared inside it. */
function walkBody(
  body: SyntaxNode | null, scope: Scope, found: Definition[], listed: Set<string>, moduleLevel: Definition[],
): void {
  if (body?.type === 'statement_block') walkStatements(body, scope, found, listed, moduleLevel);
}

function classMembers(body: SyntaxNode, classExported: boolean, found: Definition[]): void {
  for (const member of namedChildrenOf(body)) {
    let name: SyntaxNode | null = null;
    if (member.type === 'method_definition' || member.type === 'abstract_method_signature') {
      name = member.childForFieldName('name');
    } else if (member.type === 'public_field_definition' || member.type === 'field_definition') {
      const value = member.childForFieldName('value');
      if (value && FUNCTION_VALUES.has(value.type)) {
        name = member.childForFieldName('name') ?? member.childForFieldName('property');
      }
    }
    if (!name) continue;
    found.push({ name: name.text, kind: 'method', node: member, exported: classExported && isPublicMember(member, name) });
  }
}

function isPublicMember(member: SyntaxNode, name: SyntaxNode): boolean {
  if (name.type === 'private_property_identifier') return false;
  const modifier = childrenOf(member).find((child) => child.type === 'accessibility_modifier');
  return modifier === undefined || modifier.text === 'public';
}

function collectExportList(node: SyntaxNode, listed: Set<string>): void {
  for (const clause of namedChildrenOf(node)) {
    if (clause.type !== 'export_clause') continue;
    for (const specifier of namedChildrenOf(clause)) {
      const name = specifier.childForFieldName('name');
      if (specifier.type === 'export_specifier' && name) listed.add(name.text);
    }
  }
}
