/**
 * Reading one ignore-rules file (a folder's `.gitignore`, or `.git/info/exclude`) into an `ignore` matcher.
 * Edge-clean: it only talks to the FileSystem.
 */
import ignore from 'ignore';
import type { FileSystem } from '../../adapters/fs/file-system.ts';
import { isFsError } from '../../adapters/fs/fs-error.ts';
import { namePrefilter, type NamePrefilter } from './name-prefilter.ts';
import { parsedRules } from './parsed-rules-cache.ts';

export type Ignore = ignore.Ignore;

/** A rules file past this size is read only this far (git has no limit; a pathological file should not stall a walk). */
export const MAX_RULES_FILE_BYTES = 1024 * 1024;

export const GITIGNORE = '.gitignore';
/** Root-relative path of the repository's private exclude file. */
export const INFO_EXCLUDE = '.git/info/exclude';

/** A matcher with git's case sensitivity (core.ignorecase is false on Linux; `ignore` defaults to true). */
export function newMatcher(): Ignore {
  return ignore({ ignorecase: false });
}

/** One rules file read: its matcher, and which names it could match at all (./name-prefilter.ts). */
export interface RulesFile {
  rules: Ignore;
  names: NamePrefilter;
}

/**
 * The rules in the file at `path`, or null when there is none. Like git (2.32+), a rules file that is a
 * symlink is not followed. A file that cannot be read counts as absent, as git treats it. The lstat's version
 * picks up the matcher parsed last time when the file is unchanged (./parsed-rules-cache.ts).
 */
export async function readRulesFile(fs: FileSystem, path: string): Promise<RulesFile | null> {
  try {
    const stat = await fs.lstat(path);
    if (stat.type !== 'file') return null;
    return await parsedRules(fs, path, stat.version, async () => {
      const bytes = await fs.read(path, { offset: 0, length: MAX_RULES_FILE_BYTES });
      const text = new TextDecoder('utf-8').decode(bytes);
      return { rules: newMatcher().add(text), names: namePrefilter(text) };
    });
  } catch (error) {
    if (isFsError(error)) return null;
    throw error;
  }
}

/**
 * The root-relative folder whose cached rules a change to `relPath` makes stale, for `IgnoreRules.forget`
 * (a watcher calls this for every changed path): `a/.gitignore` → `a`, `.git/info/exclude` → `.git/info`,
 * `venv/pyvenv.cfg` → `venv`; undefined for any other path.
 */
export function rulesFolderOf(relPath: string, marker: string): string | undefined {
  if (relPath === INFO_EXCLUDE) return '.git/info';
  const slash = relPath.lastIndexOf('/');
  const name = relPath.slice(slash + 1);
  if (name !== GITIGNORE && name !== marker) return undefined;
  return slash < 0 ? '' : relPath.slice(0, slash);
}
