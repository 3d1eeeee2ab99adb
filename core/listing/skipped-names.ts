/**
 * What the NoIDE protocol's listings and content search never show (docs/noide-protocol.md#listing): build output,
 * package stores, caches and editor state, matched by exact name at any depth, folders and files alike
 * (`.DS_Store` is a file). Unlike core/ignore, this list is fixed and `.gitignore` plays no part: it is what
 * the original product skips, and what its UI expects to be missing.
 */
export const SKIPPED_NAMES: ReadonlySet<string> = new Set([
  '.git',
  'node_modules',
  'target',
  'dist',
  'build',
  '.vscode',
  '.idea',
  '.DS_Store',
  '__pycache__',
  '.pytest_cache',
  '.next',
  '.nuxt',
  '.venv',
  'venv',
  'vendor',
  'Pods',
  'bin',
  'obj',
  '.cache',
  'coverage',
  '.terraform',
  'bower_components',
  'jspm_packages',
  '.angular',
]);

/** §002: `read_directory` and `list_files` list nothing deeper than this (the top folder's entries are depth 0). */
export const LISTING_MAX_DEPTH = 12;

/** §002: `read_directory` and `list_files` list at most this many entries in all. */
export const LISTING_MAX_ENTRIES = 20_000;
