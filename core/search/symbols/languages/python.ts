/**
 * Definitions in Python. `def` → fn (method directly in a class body), `class` → class, a module-level
 * assignment to a name → const (fn when it holds a `lambda`), `type X = …` → type. Decorators are part of the
 * definition's extent but not its first line. exported: the name does not start with `_` (Python's convention;
 * `__all__` is not read).
 */
import { namedChildrenOf, type Definition } from './definition.ts';
import type { SyntaxNode } from '../syntax-tree.ts';

type Place = 'module' | 'class' | 'function';

export function collectPythonDefinitions(root: SyntaxNode): Definition[] {
  const found: Definition[] = [];
  walkBlock(root, 'module', found);
  return found;
}

function walkBlock(block: SyntaxNode, place: Place, found: Definition[]): void {
  for (const node of namedChildrenOf(block)) statement(node, node, place, found);
}

function statement(node: SyntaxNode, outer: SyntaxNode, place: Place, found: Definition[]): void {
  const add = (nameNode: SyntaxNode | null, kind: Definition['kind']) => {
    if (nameNode?.type !== 'identifier') return;
    const name = nameNode.text;
    found.push({ name, kind, node: outer, head: node, exported: !name.startsWith('_') });
  };
  switch (node.type) {
    case 'decorated_definition': {
      const definition = node.childForFieldName('definition');
      if (definition) statement(definition, outer, place, found);
      return;
    }
    case 'function_definition': {
      add(node.childForFieldName('name'), place === 'class' ? 'method' : 'fn');
      const body = node.childForFieldName('body');
      if (body) walkBlock(body, 'function', found);
      return;
    }
    case 'class_definition': {
      add(node.childForFieldName('name'), 'class');
      const body = node.childForFieldName('body');
      if (body) walkBlock(body, 'class', found);
      return;
    }
    case 'type_alias_statement': {
      const left = node.childForFieldName('left');
      add(left?.type === 'type' ? left.namedChild(0) : left, 'type');
      return;
    }
    case 'expression_statement': {
      const assignment = node.namedChild(0);
      if (place !== 'module' || assignment?.type !== 'assignment') return;
      add(assignment.childForFieldName('left'), assignment.childForFieldName('right')?.type === 'lambda' ? 'fn' : 'const');
      return;
    }
  }
}
