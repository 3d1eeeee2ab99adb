/**
 * Which grammar parses a file, by its extension (docs/intentic-search.md, last paragraph). `.jsx` goes to the JavaScript
 * grammar, which has JSX built in; C goes to the C++ grammar (the package ships no C grammar, and C++'s parses C
 * well enough for definitions); a Vue SFC's script blocks are parsed as TypeScript (./vue-script-blocks.ts).
 */
import type { LanguageId } from './syntax-tree.ts';

export type SourceLanguage = LanguageId | 'vue';

const BY_EXTENSION: Record<string, SourceLanguage> = {
  ts: 'typescript', mts: 'typescript', cts: 'typescript',
  tsx: 'tsx',
  js: 'javascript', mjs: 'javascript', cjs: 'javascript', jsx: 'javascript',
  vue: 'vue',
  py: 'python', pyi: 'python',
  go: 'go',
  rs: 'rust',
  c: 'cpp', h: 'cpp',
  cc: 'cpp', cpp: 'cpp', cxx: 'cpp', 'c++': 'cpp', hpp: 'cpp', hh: 'cpp', hxx: 'cpp',
  java: 'java',
};

/**
 * Languages with no grammar here whose definitions the line heuristics (./heuristic-symbols.ts) still find.
 * Everything else (Markdown, JSON, data) has no symbols at all.
 */
const HEURISTIC_EXTENSIONS = new Set([
  'rb', 'php', 'cs', 'kt', 'kts', 'swift', 'scala', 'lua', 'sh', 'bash', 'zsh', 'pl', 'pm', 'ex', 'exs', 'dart',
  'groovy', 'r', 'jl', 'svelte', 'astro', 'm', 'mm', 'fs', 'clj', 'hs', 'ml', 'zig', 'nim', 'v', 'erl',
]);

function extensionOf(path: string): string {
  const base = path.slice(path.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return dot <= 0 ? '' : base.slice(dot + 1).toLowerCase();
}

/** The grammar for `path`, or undefined when none parses it. */
export function sourceLanguageOf(path: string): SourceLanguage | undefined {
  return BY_EXTENSION[extensionOf(path)];
}

/** Whether `path` can hold symbols: a parsed language, or one the heuristics know. */
export function isSourcePath(path: string): boolean {
  const extension = extensionOf(path);
  return extension in BY_EXTENSION || HEURISTIC_EXTENSIONS.has(extension);
}

/**
 * The files of `files` that can hold symbols, kept per array: the file list hands out the same array until it
 * changes, and a `def` over a big tree should not filter 78 579 paths each time.
 */
const sourceParts = new WeakMap<readonly { path: string }[], readonly { path: string }[]>();

export function sourceFilesOf<File extends { path: string }>(files: readonly File[]): readonly File[] {
  let sources = sourceParts.get(files) as readonly File[] | undefined;
  if (sources === undefined) {
    sources = files.filter((file) => isSourcePath(file.path));
    sourceParts.set(files, sources);
  }
  return sources;
}
