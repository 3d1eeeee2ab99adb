/**
 * Recognises the names our writes give their temp entries, and nothing else: a user's `.wsapi-notes.txt` is not
 * ours. Two generations:
 *
 * - with the writer's identity (./writer-identity.ts): temp files `.wsapi-<pid>-<tag>-<16 hex>.tmp`
 *   (./node-file-system.ts), staging folders `.wsapi-<kind>-<pid>-<tag>-<16 hex>` (core/tree-ops/staging-name.ts:
 *   copies, clones, added apps, zip extractions; a kind may hold dashes, `clone-<repo>`);
 * - without (written before names carried it, or by a build that sets none): `.wsapi-<16 hex>.tmp`,
 *   `.wsapi-<kind>-<16 hex>`, and zip staging `.wsapi-zip-<uuid>`.
 */

export type LeftoverName =
  | { kind: 'temp-file' | 'staging-folder'; pid: number; tag: string }
  | { kind: 'temp-file' | 'staging-folder'; pid: undefined; tag: undefined };

const TEMP_FILE = /^\.wsapi-(\d{1,10})-([0-9a-f]{8})-[0-9a-f]{16}\.tmp$/;
const STAGING_FOLDER = /^\.wsapi-[A-Za-z0-9._-]+?-(\d{1,10})-([0-9a-f]{8})-[0-9a-f]{16}$/;
const OLD_TEMP_FILE = /^\.wsapi-[0-9a-f]{16}\.tmp$/;
const OLD_STAGING_FOLDER = /^\.wsapi-[A-Za-z0-9._-]+?-[0-9a-f]{16}$/;
const OLD_ZIP_STAGING = /^\.wsapi-zip-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** What a directory entry is, if one of our writes named it; `undefined` for everything else. */
export function parseLeftoverName(name: string, type: 'file' | 'dir'): LeftoverName | undefined {
  if (!name.startsWith('.wsapi-')) return undefined;
  if (type === 'file') {
    const match = TEMP_FILE.exec(name);
    if (match) return { kind: 'temp-file', pid: Number(match[1]), tag: match[2]! };
    return OLD_TEMP_FILE.test(name) ? { kind: 'temp-file', pid: undefined, tag: undefined } : undefined;
  }
  const match = STAGING_FOLDER.exec(name);
  if (match) return { kind: 'staging-folder', pid: Number(match[1]), tag: match[2]! };
  return OLD_STAGING_FOLDER.test(name) || OLD_ZIP_STAGING.test(name) ? { kind: 'staging-folder', pid: undefined, tag: undefined } : undefined;
}

/**
 * Whether a path (`/`-separated, absolute or relative to the workspace root) is one of our writes in flight: a
 * temp file, a staging folder, or anything inside one. What happens there is never a state anyone should see —
 * the temp file is renamed over its target a moment later, the staging folder renamed into place — and the
 * target's own change is reported when it lands.
 */
export function isWriteInFlight(path: string): boolean {
  if (!path.includes('/.wsapi-') && !path.startsWith('.wsapi-')) return false;
  const names = path.split('/');
  return names.some((name, i) => parseLeftoverName(name, 'dir') !== undefined || (i === names.length - 1 && parseLeftoverName(name, 'file') !== undefined));
}
