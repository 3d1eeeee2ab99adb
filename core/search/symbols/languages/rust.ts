/**
 * Definitions in Rust. `fn` → fn, inside an `impl` or `trait` → method (a trait's bodiless signatures too);
 * `struct`, `enum`, `union`, `trait`, `type` → type; `const` and `static` → const; `mod` bodies are walked.
 * exported: a `pub` visibility of any reach (`pub(crate)` included); a trait's items are as visible as the trait,
 * and the methods of `impl Trait for T` are public (a trait's methods have no visibility of their own).
 * Function bodies are not walked.
 */
import { hasChildOfType, namedChildrenOf, type Definition } from './definition.ts';
import type { SyntaxNode } from '../syntax-tree.ts';

const TYPE_ITEMS = new Set(['struct_item', 'enum_item', 'union_item', 'trait_item', 'type_item']);

export function collectRustDefinitions(root: SyntaxNode): Definition[] {
  const found: Definition[] = [];
  walkItems(root, false, undefined, found);
  return found;
}

/** `visible`: the visibility a trait or trait impl gives its items (undefined: each item's own `pub`). */
function walkItems(container: SyntaxNode, inImpl: boolean, visible: boolean | undefined, found: Definition[]): void {
  for (const node of namedChildrenOf(container)) {
    const exported = visible ?? hasChildOfType(node, 'visibility_modifier');
    const add = (kind: Definition['kind']) => {
      const name = node.childForFieldName('name');
      if (name) found.push({ name: name.text, kind, node, exported });
    };
    if (node.type === 'function_item' || node.type === 'function_signature_item') add(inImpl ? 'method' : 'fn');
    else if (TYPE_ITEMS.has(node.type)) add('type');
    else if (node.type === 'const_item' || node.type === 'static_item') add('const');
    const body = node.childForFieldName('body');
    if (!body) continue;
    if (node.type === 'mod_item') walkItems(body, false, undefined, found);
    else if (node.type === 'trait_item') walkItems(body, true, exported, found);
    else if (node.type === 'impl_item') walkItems(body, true, node.childForFieldName('trait') ? true : undefined, found);
  }
}
