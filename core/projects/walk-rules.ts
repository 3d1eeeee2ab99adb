/**
 * docs/intentic-projects.md#shared-rules: the folders no project walk enters (installed packages, VCS, caches,
 * build output), and the daemon's own state folder, which is never a project, module, health file or classified
 * entry. Walks never follow a symbolic link, so nothing outside the workspace is reached.
 */

export const SKIPPED_FOLDER_NAMES: ReadonlySet<string> = new Set([
  'node_modules', '.git', '.venv', 'venv', '__pycache__', '.pytest_cache', '.mypy_cache', '.ruff_cache', '.cache',
  '.turbo', '.next', '.angular', '.pnpm-store', '.yarn', '.gradle', 'dist',
]);

/** The daemon's state under the root (`.intentic/config/templates.json`, …). */
export const STATE_FOLDER = '.intentic';

/** A folder a project walk may enter: not skipped, not the state folder, and (for discovery walks) not hidden. */
export function isWalkedFolder(name: string, options: { hidden: boolean }): boolean {
  if (SKIPPED_FOLDER_NAMES.has(name) || name === STATE_FOLDER) return false;
  return options.hidden || !name.startsWith('.');
}
