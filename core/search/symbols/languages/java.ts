/**
 * Definitions in Java. `class` and `record` → class; `interface`, `enum`, `@interface` → type; methods and
 * constructors → method; `static final` fields → const. Annotations are part of the extent, not the first line.
 * exported: a `public` modifier, or a member of an interface (implicitly public).
 */
import { childrenOf, namedChildrenOf, type Definition } from './definition.ts';
import type { SyntaxNode } from '../syntax-tree.ts';

const CLASSES = new Set(['class_declaration', 'record_declaration']);
const TYPES = new Set(['interface_declaration', 'enum_declaration', 'annotation_type_declaration']);
const METHODS = new Set(['method_declaration', 'constructor_declaration', 'compact_constructor_declaration']);
const BODIES = new Set(['class_body', 'interface_body', 'enum_body', 'enum_body_declarations', 'annotation_type_body']);

export function collectJavaDefinitions(root: SyntaxNode): Definition[] {
  const found: Definition[] = [];
  walkMembers(root, false, found);
  return found;
}

function walkMembers(container: SyntaxNode, inInterface: boolean, found: Definition[]): void {
  for (const node of namedChildrenOf(container)) {
    const modifiers = modifiersOf(node);
    const exported = inInterface || modifiers.has('public');
    const add = (name: SyntaxNode | null, kind: Definition['kind']) => {
      if (name) found.push({ name: name.text, kind, node, exported });
    };
    if (CLASSES.has(node.type)) add(node.childForFieldName('name'), 'class');
    else if (TYPES.has(node.type)) add(node.childForFieldName('name'), 'type');
    else if (METHODS.has(node.type)) add(node.childForFieldName('name'), 'method');
    else if (node.type === 'field_declaration' || node.type === 'constant_declaration') {
      if (node.type === 'constant_declaration' || (modifiers.has('static') && modifiers.has('final'))) {
        for (const declarator of namedChildrenOf(node)) {
          if (declarator.type === 'variable_declarator') add(declarator.childForFieldName('name'), 'const');
        }
      }
    } else if (BODIES.has(node.type)) {
      walkMembers(node, inInterface, found);
      continue;
    }
    const body = node.childForFieldName('body');
    if (body && BODIES.has(body.type) && !METHODS.has(node.type)) {
      walkMembers(body, node.type === 'interface_declaration' || node.type === 'annotation_type_declaration', found);
    }
  }
}

function modifiersOf(node: SyntaxNode): Set<string> {
  const modifiers = childrenOf(node).find((child) => child.type === 'modifiers');
  return new Set(modifiers ? childrenOf(modifiers).filter((child) => !child.isNamed).map((child) => child.text) : []);
}
