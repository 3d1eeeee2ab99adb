/**
 * `context` (docs/intentic-search.md, ours): the enclosing symbol of a hit as `name (kind)`, e.g. `defaultWidgets (const)`,
 * on `find`/`q`/`refs` hits inside a symbol that are not its definition line: the innermost symbol holding the
 * line other than one defined on it (a method's first line sits in its class). Added to a page's groups only (the
 * files a client sees), since it parses each file; of a page, the first CONTEXT_GROUPS groups get it, so a
 * 300-file page on a big tree is not held up by 300 parses (~1 MB/s of WASM). Deterministic: the same page of
 * the same query always has the same contexts.
 */
import type { Group, SearchMode } from '../answer.ts';
import type { FileList } from '../file-list/file-list.ts';
import type { SymbolIndex } from '../symbols/symbol-index.ts';

export const CONTEXT_GROUPS = 25;
const MODES_WITH_CONTEXT: ReadonlySet<SearchMode> = new Set(['find', 'q', 'refs']);

export async function decorateContext(mode: SearchMode, groups: readonly Group[], symbols: SymbolIndex, fileList: FileList): Promise<void> {
  if (!MODES_WITH_CONTEXT.has(mode)) return;
  await Promise.all(
    groups.slice(0, CONTEXT_GROUPS).map(async (group) => {
      const file = fileList.get(group.path);
      if (file === undefined) return;
      for (const hit of group.hits) {
        if (hit.context !== undefined || hit.tags.some((tag) => tag.kind === 'def')) continue;
        const symbol = await symbols.enclosing(file, hit.line, { notDefinedAt: true });
        if (symbol !== undefined) hit.context = `${symbol.name} (${symbol.kind})`;
      }
    }),
  );
}
