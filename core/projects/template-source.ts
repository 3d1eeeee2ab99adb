/**
 * Where app templates come from (docs/intentic-projects.md#templates), read on each call:
 * `<root>/.intentic/config/templates.json` `{source?, ref?}` names
 * - a local folder (absolute, or relative to the root), read in place;
 * - or a git URL (`https://`, `http://`, `ssh://`, `git://`, `[user@]host:path`): a shallow clone of `ref` (default
 *   `main`) through the GitRunner, `clone --depth 1 --branch REF -- URL <cache dir>`, kept and reused;
 * and without either, the templates shipped with the daemon (a folder the runtime names: runtime/node passes the
 * package's `templates/`; a runtime without one has no default source).
 *
 * The source folder holds `templates.json` `{scope?, shared?: [dir], templates: {<key>: {label, description,
 * instance: [dir]}}}`, each dir a plain relative path, and each template an `instance` dir whose last segment is its
 * key (what an add-apps job copies as the new app). Anything unreadable or invalid, config or source, is
 * PRECONDITION_FAILED naming the problem: the request is fine, the workspace's setup is not.
 *
 * The clone cache lives under the daemon's state folder, `<root>/.intentic/cache/templates/<hash of URL and ref>`:
 * `.intentic/` is never a project, module, repo, health file or classified entry (core/projects/walk-rules.ts), the
 * GitRunner runs git only inside the workspace (its ceiling is the root's parent), an edge-clean core knows no
 * temp folder of the machine, and the cache survives restarts so a configured source keeps working offline. The
 * clone lands in a staging folder renamed into place once complete (a failed clone leaves nothing), without its
 * `.git` (only the files are templates, and the cache is never mistaken for a repo). A different URL or ref is a
 * different cache entry; delete the folder to fetch a moved branch again.
 */
import { z } from 'zod';
import type { FileSystem } from '../../adapters/fs/file-system.ts';
import { isFsError } from '../../adapters/fs/fs-error.ts';
import { isInside, join, normalize } from '../../adapters/fs/posix-path.ts';
import { WorkspaceError } from '../errors/workspace-error.ts';
import { checkCloneUrl, CLONE_PROTOCOLS } from '../git/clone-request.ts';
import { refName } from '../git/git-args.ts';
import { GitRunError, type GitRunner } from '../git/git-runner.ts';
import { stagingName } from '../tree-ops/staging-name.ts';
import { lstatOrUndefined } from '../tree-ops/transfer-checks.ts';
import { STATE_FOLDER } from './walk-rules.ts';

export const TEMPLATES_CONFIG = `${STATE_FOLDER}/config/templates.json`;
export const TEMPLATES_CACHE = `${STATE_FOLDER}/cache/templates`;
const DEFAULT_REF = 'main';

export interface TemplateInfo {
  key: string;
  label: string;
  description: string;
  /** Source-relative folders; the one whose last segment is `key` is the app itself. */
  instance: string[];
}

export interface TemplateSource {
  /** The source folder (absolute). */
  dir: string;
  /** How messages name it: the configured `source`, or `the shipped templates`. */
  label: string;
  /** Prefix of the packages' names (`@acme/`), `""` when none. */
  scope: string;
  /** Source-relative folders every app's repo gets once, where absent. */
  shared: string[];
  /** Sorted by key (code unit order). */
  templates: TemplateInfo[];
}

export interface TemplateSourceOptions {
  fs: FileSystem;
  /** The workspace root's real path. */
  root: string;
  /** For a git URL source; without it such a source is PRECONDITION_FAILED. */
  git?: GitRunner | undefined;
  /** The templates shipped with the daemon (absolute folder); absent on a runtime without them. */
  shippedDir?: string | undefined;
}

export interface TemplateSources {
  /** The source as configured now (the config is read on every call). */
  read(): Promise<TemplateSource>;
  /**
   * The source's keys (the apps list's `kind`), or undefined while the source is unusable or a git source is not
   * cloned yet (listing apps never clones); never rejects.
   */
  keys(): Promise<ReadonlySet<string> | undefined>;
}

const KEY = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** A plain relative folder: segments that are names, never `.`, `..`, empty, absolute, a backslash or NUL. */
function isRelativeDir(dir: string): boolean {
  if (dir === '' || dir.startsWith('/') || dir.includes('\\') || dir.includes('\0')) return false;
  return dir.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..');
}

const relativeDir = z.string().refine(isRelativeDir, { error: (issue) => `${JSON.stringify(issue.input)} is not a plain relative folder` });

const templateSchema = z.object({ label: z.string(), description: z.string(), instance: z.array(relativeDir).min(1) });

const manifestSchema = z.object({
  scope: z.string().optional(),
  shared: z.array(relativeDir).optional(),
  templates: z.record(z.string(), templateSchema).superRefine((templates, context) => {
    for (const [key, template] of Object.entries(templates)) {
      if (!KEY.test(key)) context.addIssue({ code: 'custom', path: [key], message: `${JSON.stringify(key)} is not a valid template key` });
      else if (!template.instance.some((dir) => lastSegment(dir) === key)) {
        context.addIssue({ code: 'custom', path: [key, 'instance'], message: `no instance dir ends in "${key}"` });
      }
    }
  }),
});

const configSchema = z.object({ source: z.string().optional(), ref: z.string().optional() });

export function lastSegment(dir: string): string {
  return dir.slice(dir.lastIndexOf('/') + 1);
}

/** The instance dir that is the app of template `template` (templates.json guarantees one). */
export function appDirOf(template: TemplateInfo): string {
  return template.instance.find((dir) => lastSegment(dir) === template.key)!;
}

export function createTemplateSources(options: TemplateSourceOptions): TemplateSources {
  const { fs, root } = options;
  /** Clones under way, by cache folder: two calls during a clone share it. */
  const cloning = new Map<string, Promise<string>>();

  async function readConfig(): Promise<z.output<typeof configSchema> | undefined> {
    let text: string;
    try {
      text = new TextDecoder().decode(await fs.read(join(root, TEMPLATES_CONFIG)));
    } catch (error) {
      if (isFsError(error, 'not-found') || isFsError(error, 'not-directory')) return undefined;
      throw unusable(`${TEMPLATES_CONFIG} cannot be read: ${(error as Error).message}`);
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw unusable(`${TEMPLATES_CONFIG} is not valid JSON`);
    }
    const parsed = configSchema.safeParse(json);
    if (!parsed.success) throw unusable(`${TEMPLATES_CONFIG}: ${describe(parsed.error)}`);
    return parsed.data;
  }

  async function cloned(url: string, ref: string, fetch: boolean): Promise<string> {
    const git = options.git;
    if (git === undefined) throw unusable(`template source "${url}" is a git URL, and git is not available on this runtime`);
    const cacheRoot = join(root, TEMPLATES_CACHE);
    const dir = join(cacheRoot, await cacheKey(url, ref));
    if ((await lstatOrUndefined(fs, dir))?.type === 'dir') return dir;
    if (!fetch) throw unusable(`template source "${url}" at "${ref}" is not fetched yet`);
    let clone = cloning.get(dir);
    if (clone === undefined) {
      clone = cloneInto(git, url, ref, cacheRoot, dir).finally(() => cloning.delete(dir));
      cloning.set(dir, clone);
    }
    return clone;
  }

  async function cloneInto(git: GitRunner, url: string, ref: string, cacheRoot: string, dir: string): Promise<string> {
    await fs.mkdir(cacheRoot, { recursive: true });
    const staging = stagingName(cacheRoot, 'templates');
    try {
      const output = await git
        .run(['clone', '--depth', '1', '--branch', ref, '--', url, staging], { cwd: root, env: { GIT_ALLOW_PROTOCOL: CLONE_PROTOCOLS } })
        .catch((error: unknown) => {
          throw error instanceof GitRunError ? unusable(`template source "${url}" cannot be cloned: ${error.message}`) : error;
        });
      if (output.code !== 0) {
        const why = output.stderr.trim().split('\n').filter(Boolean).pop() ?? `git clone failed (exit ${output.code})`;
        throw unusable(`template source "${url}" at "${ref}" cannot be cloned: ${why}`);
      }
      await fs.remove(join(staging, '.git'), { recursive: true }).catch(() => {});
      if ((await lstatOrUndefined(fs, dir))?.type !== 'dir') await fs.rename(staging, dir);
      return dir;
    } finally {
      await fs.remove(staging, { recursive: true }).catch(() => {}); // gone already when renamed
    }
  }

  async function load(dir: string, label: string): Promise<TemplateSource> {
    if ((await statType(fs, dir)) !== 'dir') throw unusable(`template source "${label}" is not a folder`);
    let text: string;
    try {
      text = new TextDecoder().decode(await fs.read(join(dir, 'templates.json')));
    } catch (error) {
      if (isFsError(error, 'not-found')) throw unusable(`template source "${label}" has no templates.json`);
      throw unusable(`template source "${label}": templates.json cannot be read: ${(error as Error).message}`);
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw unusable(`template source "${label}": templates.json is not valid JSON`);
    }
    const parsed = manifestSchema.safeParse(json);
    if (!parsed.success) throw unusable(`template source "${label}": templates.json: ${describe(parsed.error)}`);
    const manifest = parsed.data;
    const templates = Object.entries(manifest.templates)
      .map(([key, template]) => ({ key, ...template }))
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    return { dir, label, scope: manifest.scope ?? '', shared: manifest.shared ?? [], templates };
  }

  async function read(fetch = true): Promise<TemplateSource> {
    const config = await readConfig();
    const source = config?.source?.trim();
    if (source === undefined || source === '') {
      if (config?.ref !== undefined) throw unusable(`${TEMPLATES_CONFIG}: "ref" needs a git URL "source"`);
      if (options.shippedDir === undefined) throw unusable('no template source: none is configured and none ships with this runtime');
      return load(options.shippedDir, 'the shipped templates');
    }
    if (isGitUrl(source)) {
      let url: string;
      try {
        url = checkCloneUrl(source);
      } catch (error) {
        throw unusable(`template source "${source}": ${(error as Error).message}`);
      }
      const ref = config?.ref === undefined ? DEFAULT_REF : refName(config.ref);
      if (ref === undefined) throw unusable(`${TEMPLATES_CONFIG}: invalid ref ${JSON.stringify(config?.ref)}`);
      return load(await cloned(url, ref, fetch), source);
    }
    if (config?.ref !== undefined) throw unusable(`${TEMPLATES_CONFIG}: "ref" applies only to a git URL source`);
    if (source.includes('\0')) throw unusable(`${TEMPLATES_CONFIG}: invalid source`);
    return load(source.startsWith('/') ? normalize(source) : join(root, source), source);
  }

  return {
    read: () => read(),
    async keys() {
      try {
        return new Set((await read(false)).templates.map((template) => template.key));
      } catch {
        return undefined;
      }
    },
  };
}

/**
 * The absolute folder of `dir` in the source, or PRECONDITION_FAILED when it is missing, not a folder, or (through a
 * link) outside the source: a template never copies anything from elsewhere on the machine.
 */
export async function sourceFolder(fs: FileSystem, source: TemplateSource, dir: string): Promise<string> {
  const path = join(source.dir, dir);
  let real: string;
  let sourceReal: string;
  try {
    [real, sourceReal] = await Promise.all([fs.realpath(path), fs.realpath(source.dir)]);
  } catch (error) {
    if (isFsError(error, 'not-found') || isFsError(error, 'not-directory')) throw unusable(`template source "${source.label}" has no folder "${dir}"`);
    throw error;
  }
  if (!isInside(sourceReal, real) || real === sourceReal) throw unusable(`template source "${source.label}": "${dir}" leads outside the source`);
  if ((await statType(fs, real)) !== 'dir') throw unusable(`template source "${source.label}": "${dir}" is not a folder`);
  return real;
}

/** `https://`…, `ssh://`…, or scp-like `[user@]host:path`; anything else is a folder path. */
function isGitUrl(source: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(source) || /^(?:[A-Za-z0-9._~-]+@)?[A-Za-z0-9][A-Za-z0-9.-]*:(?!\/\/)/.test(source);
}

async function cacheKey(url: string, ref: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(`${url}\n${ref}`));
  return Array.from(new Uint8Array(digest).subarray(0, 10), (b) => b.toString(16).padStart(2, '0')).join('');
}

async function statType(fs: FileSystem, path: string): Promise<string | undefined> {
  try {
    return (await fs.stat(path)).type;
  } catch (error) {
    if (isFsError(error, 'not-found') || isFsError(error, 'not-directory') || isFsError(error, 'loop')) return undefined;
    throw error;
  }
}

function describe(error: z.ZodError): string {
  return error.issues.map((issue) => (issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message)).join('; ');
}

function unusable(message: string): WorkspaceError {
  return new WorkspaceError('precondition-failed', message);
}
