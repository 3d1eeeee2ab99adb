/**
 * A Vue single-file component's `<script>` and `<script setup>` blocks, as one TypeScript text with FILE
 * positions: every character outside the blocks becomes a space (line breaks stay), so rows, columns and
 * offsets in the parsed tree are the SFC's own and no mapping is needed afterwards.
 */
const SCRIPT_BLOCK = /<script\b([^>]*)>([\s\S]*?)<\/script\s*>/gi;
const LANG = /\blang\s*=\s*["']?([\w-]+)/i;

export interface MaskedScripts {
  /** The SFC with everything but its script contents blanked. */
  text: string;
  /** `tsx` when a block says `lang="tsx"` or `"jsx"`, else `typescript` (which parses plain JavaScript too). */
  grammar: 'typescript' | 'tsx';
  /** Whether the SFC has any script block. */
  found: boolean;
}

export function maskVueScripts(sfc: string): MaskedScripts {
  let text = '';
  let grammar: MaskedScripts['grammar'] = 'typescript';
  let copied = 0;
  let found = false;
  for (const match of sfc.matchAll(SCRIPT_BLOCK)) {
    const contentStart = match.index + match[0].indexOf('>') + 1;
    const content = match[2]!;
    text += blank(sfc.slice(copied, contentStart)) + content;
    copied = contentStart + content.length;
    found = true;
    const lang = LANG.exec(match[1]!)?.[1]?.toLowerCase();
    if (lang === 'tsx' || lang === 'jsx') grammar = 'tsx';
  }
  text += blank(sfc.slice(copied));
  return { text, grammar, found };
}

function blank(text: string): string {
  return text.replace(/[^\r\n]/g, ' ');
}
