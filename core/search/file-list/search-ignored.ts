/**
 * Which folders the file list treats specially, by name at any depth.
 */
import { DEFAULT_IGNORED_FOLDER_NAMES } from '../../changes/watcher-source.ts';

/**
 * docs/intentic-search.md "What is searched": these folders are ignored at any depth (searched only with
 * `includeIgnored`), on top of `.gitignore` and what core/ignore always ignores.
 */
export const SEARCH_IGNORED_FOLDERS: ReadonlySet<string> = new Set([
  'node_modules', '.tmp', 'dist', '.cache', '.turbo', '.next', '.angular', '.pnpm-store', '.yarn', '.venv', 'venv',
  '__pycache__', '.pytest_cache', '.mypy_cache', '.ruff_cache', '.gradle',
]);

/** Never listed, never walked, whatever its kind (docs/intentic-search.md: `.git` never, even with `includeIgnored`). */
export const NEVER_LISTED = '.git';

/**
 * Folders the OS watcher never enters (core/changes/watcher-source.ts), so the list could not keep them
 * current: kept as names only, their files walked on demand (FileList.storeFiles). `.git` is never walked.
 */
export const ON_DEMAND_FOLDERS: ReadonlySet<string> = new Set(
  DEFAULT_IGNORED_FOLDER_NAMES.filter((name) => name !== NEVER_LISTED),
);
