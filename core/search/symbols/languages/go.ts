/**
 * Definitions in Go. `func` → fn, a method (a receiver) → method, every `type` spec (struct, interface, alias,
 * defined type) → type, package-level `const` and `var` names → const, each at its own spec's line (a grouped
 * `const ( … )` shows the spec, not the `const (` line). exported: the name starts with an upper-case letter.
 * Function bodies are not walked (Go has no nested named functions).
 */
import { namedChildrenOf, type Definition } from './definition.ts';
import type { SyntaxNode } from '../syntax-tree.ts';

export function collectGoDefinitions(root: SyntaxNode): Definition[] {
  const found: Definition[] = [];
  const add = (nameNode: SyntaxNode | null, kind: Definition['kind'], node: SyntaxNode) => {
    if (nameNode) found.push({ name: nameNode.text, kind, node, exported: isExported(nameNode.text) });
  };
  for (const node of namedChildrenOf(root)) {
    switch (node.type) {
      case 'function_declaration':
        add(node.childForFieldName('name'), 'fn', node);
        break;
      case 'method_declaration':
        add(node.childForFieldName('name'), 'method', node);
        break;
      case 'type_declaration':
        for (const spec of namedChildrenOf(node)) {
          if (spec.type === 'type_spec' || spec.type === 'type_alias') add(spec.childForFieldName('name'), 'type', spec);
        }
        break;
      case 'const_declaration':
      case 'var_declaration':
        for (const spec of specsOf(node)) {
          for (const name of namedChildrenOf(spec)) if (name.type === 'identifier') add(name, 'const', spec);
        }
        break;
    }
  }
  return found;
}

/** The `const_spec`/`var_spec` nodes of a declaration (a grouped `var ( … )` nests them in a list). */
function specsOf(declaration: SyntaxNode): SyntaxNode[] {
  return namedChildrenOf(declaration).flatMap((child) =>
    child.type === 'var_spec_list' ? namedChildrenOf(child) : [child],
  ).filter((spec) => spec.type === 'const_spec' || spec.type === 'var_spec');
}

function isExported(name: string): boolean {
  const first = name.charAt(0);
  return first !== first.toLowerCase() && first === first.toUpperCase();
}
