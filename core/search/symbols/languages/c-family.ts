/**
 * Definitions in C and C++ (both through the C++ grammar).
 * - A function definition → fn; inside a class/struct body, or defined out of line as `Scope::name`, → method
 *   (in-class method declarations count too: in a header they are where a method is defined for a reader).
 *   Prototypes outside classes are declarations, not definitions, and are skipped.
 * - `class` → class; `struct`, `union`, `enum` with a body, `typedef` and `using X =` → type.
 * - `#define NAME` → const, `#define NAME(…)` → fn; a file-scope variable with an initialiser → const.
 * - Namespaces, `extern "C"`, templates and `#if`/`#ifdef` blocks are walked as file scope.
 * exported: no `static` storage class (external linkage); class members follow their class.
 * Function bodies are not walked (no nested functions in C; C++ lambdas are values).
 */
import { childrenOf, namedChildrenOf, type Definition } from './definition.ts';
import type { SyntaxNode } from '../syntax-tree.ts';

const CONTAINERS = new Set([
  'translation_unit', 'declaration_list', 'linkage_specification', 'template_declaration', 'preproc_if',
  'preproc_ifdef', 'preproc_else', 'preproc_elif', 'preproc_elifdef',
]);
const TYPE_SPECIFIERS = new Set(['struct_specifier', 'union_specifier', 'enum_specifier']);
const DECLARATOR_WRAPPERS = new Set([
  'pointer_declarator', 'reference_declarator', 'parenthesized_declarator', 'array_declarator',
  'attributed_declarator', 'init_declarator',
]);

export function collectCFamilyDefinitions(root: SyntaxNode): Definition[] {
  const found: Definition[] = [];
  walk(root, undefined, found);
  return found;
}

/** `inClass`: undefined at file scope, else whether the enclosing class is exported. */
function walk(container: SyntaxNode, inClass: boolean | undefined, found: Definition[]): void {
  for (const node of namedChildrenOf(container)) {
    const exported = inClass ?? !isStatic(node);
    const add = (name: string | undefined, kind: Definition['kind'], at: SyntaxNode = node) => {
      if (name) found.push({ name, kind, node: at, exported });
    };
    switch (node.type) {
      case 'function_definition': {
        const declarator = functionDeclarator(node.childForFieldName('declarator'));
        const target = declarator?.childForFieldName('declarator');
        const qualified = target?.type === 'qualified_identifier';
        add(declaredName(target), inClass !== undefined || qualified ? 'method' : 'fn');
        break;
      }
      case 'field_declaration':
      case 'declaration': {
        typeSpecifier(node.childForFieldName('type'), exported, found);
        for (const declarator of declaratorsOf(node)) {
          const fn = functionDeclarator(declarator);
          if (fn && inClass !== undefined) add(declaredName(fn.childForFieldName('declarator')), 'method');
          else if (!fn && inClass === undefined && node.type === 'declaration' && declarator.type === 'init_declarator') {
            add(declaredName(declarator), 'const');
          }
        }
        break;
      }
      case 'type_definition':
        typeSpecifier(node.childForFieldName('type'), exported, found);
        for (const declarator of declaratorsOf(node)) add(declaredName(declarator), 'type');
        break;
      case 'alias_declaration':
        add(node.childForFieldName('name')?.text, 'type');
        break;
      case 'class_specifier':
      case 'struct_specifier':
      case 'union_specifier':
      case 'enum_specifier':
        typeSpecifier(node, exported, found);
        break;
      case 'preproc_def':
        add(node.childForFieldName('name')?.text, 'const');
        break;
      case 'preproc_function_def':
        add(node.childForFieldName('name')?.text, 'fn');
        break;
      case 'namespace_definition': {
        const body = node.childForFieldName('body');
        if (body) walk(body, undefined, found);
        break;
      }
      default:
        if (CONTAINERS.has(node.type)) walk(node, inClass, found);
    }
  }
}

/** A class/struct/union/enum with a body: a definition, and (for the first three) a scope of members. */
function typeSpecifier(node: SyntaxNode | null, exported: boolean, found: Definition[]): void {
  if (!node) return;
  const name = node.childForFieldName('name');
  const body = node.childForFieldName('body');
  if (!body) return;
  if (name && (node.type === 'class_specifier' || TYPE_SPECIFIERS.has(node.type))) {
    found.push({ name: name.text, kind: node.type === 'class_specifier' ? 'class' : 'type', node, exported });
  }
  if (node.type !== 'enum_specifier') walk(body, exported, found);
}

function declaratorsOf(node: SyntaxNode): SyntaxNode[] {
  const declarators: SyntaxNode[] = [];
  for (let i = 0; i < node.childCount; i++) {
    const child = node.child(i);
    // Several declarators share the `declarator` field (`int a = 1, b = 2;`): scan by position.
    if (child && child.isNamed && isDeclarator(child)) declarators.push(child);
  }
  return declarators;
}

function isDeclarator(node: SyntaxNode): boolean {
  return node.type.endsWith('declarator') || node.type === 'identifier' || node.type === 'field_identifier'
    || node.type === 'type_identifier';
}

/** The function declarator inside pointer/reference/parenthesised wrappers, or null when it declares no function. */
function functionDeclarator(node: SyntaxNode | null): SyntaxNode | null {
  let current = node;
  while (current && DECLARATOR_WRAPPERS.has(current.type) && current.type !== 'init_declarator') {
    current = current.childForFieldName('declarator');
  }
  return current?.type === 'function_declarator' ? current : null;
}

/** The name a declarator declares: through the wrappers, the last part of a qualified name. */
function declaredName(node: SyntaxNode | null | undefined): string | undefined {
  let current = node ?? null;
  while (current) {
    if (DECLARATOR_WRAPPERS.has(current.type) || current.type === 'function_declarator') {
      current = current.childForFieldName('declarator');
    } else if (current.type === 'qualified_identifier') {
      current = current.childForFieldName('name');
    } else {
      return /^(?:identifier|field_identifier|type_identifier|destructor_name|operator_name)$/.test(current.type)
        ? current.text
        : undefined;
    }
  }
  return undefined;
}

function isStatic(node: SyntaxNode): boolean {
  return childrenOf(node).some((child) => child.type === 'storage_class_specifier' && child.text === 'static');
}
