/**
 * Reading a `package.json` without trusting it (docs/intentic-projects.md): a file that is missing, unreadable, not
 * JSON or not an object is "no manifest", never an error that fails a call. Links are not followed: a manifest is
 * read only when it is a regular file of its own folder, so nothing outside the workspace is reached.
 */
import type { FileSystem } from '../../adapters/fs/file-system.ts';
import { isFsError } from '../../adapters/fs/fs-error.ts';

export type Manifest = Record<string, unknown>;

/** Manifests past this size are not read (a package.json is a few KiB; this keeps a stray huge file cheap). */
const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;

/** The parsed `package.json` of `dir` (absolute), or undefined when there is none that parses to an object. */
export async function readManifest(fs: FileSystem, dir: string): Promise<Manifest | undefined> {
  const text = await readRegularText(fs, `${dir}/package.json`);
  if (text === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    return isRecord(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** A regular file's text (not through a link, not past the cap), or undefined. */
export async function readRegularText(fs: FileSystem, path: string): Promise<string | undefined> {
  try {
    const stat = await fs.lstat(path);
    if (stat.type !== 'file' || stat.size > MAX_MANIFEST_BYTES) return undefined;
    return new TextDecoder().decode(await fs.read(path));
  } catch (error) {
    if (isFsError(error)) return undefined;
    throw error;
  }
}

/** The manifest's `name` when it is a non-empty string. */
export function packageName(manifest: Manifest | undefined): string | undefined {
  const name = manifest?.name;
  return typeof name === 'string' && name !== '' ? name : undefined;
}

/** The keys of one dependency block (`dependencies`, `devDependencies`, …); none when it is not an object. */
export function dependencyNames(manifest: Manifest, block: string): string[] {
  const value = manifest[block];
  return isRecord(value) ? Object.keys(value) : [];
}

/** A script of the manifest's `scripts`, when it is a string. */
export function scriptOf(manifest: Manifest, script: string): string | undefined {
  const scripts = manifest.scripts;
  const value = isRecord(scripts) ? scripts[script] : undefined;
  return typeof value === 'string' ? value : undefined;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
