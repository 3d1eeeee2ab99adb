/**
 * Agents' private copies (docs/intentic.md#agents): the AgentCopies of ./workspace-view.ts.
 *
 * Layout of the agents folder (`--agents-dir`, default `.agents/` under the root). Agent ids cannot start
 * with a dot, so nothing here but `<id>` can ever be taken for an agent:
 *   <id>/                       the agent's copy: a git worktree on branch `agent/<id>` when the root is in a
 *                               git repository with a commit and the runtime has git; else a plain copy
 *   .state/<id>.json            what kind of copy it is: { kind, base, branch }
 *   .state/<id>.whiteouts.json  the shared entries the agent removed (adapters/fs/overlay/whiteouts.ts); kept
 *                               beside the copy, not in it, so they never show in its tree or `git status`
 *   .incoming-<id>-<uuid>/      a plain copy being made, renamed to <id> once complete
 *
 * An agent exists while its folder does: agents survive a daemon restart (nothing else is remembered), and
 * a copy made or removed by hand is seen at the next request. Its view is an OverlayFileSystem over the app's
 * own FileSystem — the wrapped one, so agents' writes are serialised and reported like everyone's.
 *
 * Removal: a worktree goes with `git worktree remove --force` (uncommitted changes are dropped: that is
 * what deleting an agent means), and its branch with `git branch -d`, which refuses a branch holding commits
 * not merged into HEAD: such a branch is kept, and an agent created again under the same id resumes it.
 */
import type { FileSystem } from '../../adapters/fs/file-system.ts';
import { isFsError } from '../../adapters/fs/fs-error.ts';
import { OverlayFileSystem } from '../../adapters/fs/overlay-file-system.ts';
import { loadWhiteoutFile } from '../../adapters/fs/overlay/whiteouts.ts';
import { isInside, join, normalize, relativeTo } from '../../adapters/fs/posix-path.ts';
import type { GitRepository, WorktreeAdapter } from '../../adapters/git/worktree-adapter.ts';
import { WorkspaceError } from '../errors/workspace-error.ts';
import { resolveInsideRoot } from '../paths/resolve-inside-root.ts';
import { agentViewOfChange, sharedViewOfChange } from './agent-changes.ts';
import { copySharedTree, type CopyCaps } from './copy-shared-tree.ts';
import { AGENT_ID_PATTERN, checkAgentId, unknownAgent, type AgentCopies, type WorkspaceView } from './workspace-view.ts';

export interface AgentCopiesOptions {
  /** The FileSystem every workspace read and write goes through (the app's wrapped one). */
  fs: FileSystem;
  /** The workspace root's real path (the app resolves it lazily). */
  root: () => Promise<string>;
  /** The root as configured: `dir` below it is re-based onto the real root once that is known. */
  configuredRoot: string;
  /** The agents folder, absolute. */
  dir: string;
  unrestricted?: boolean;
  /** Git worktrees (Node); without it every agent gets a plain copy. */
  worktrees?: WorktreeAdapter;
  /** Caps on a plain copy. */
  copyCaps: CopyCaps;
}

interface CopyRecord {
  kind: 'worktree' | 'copy';
  /** Where the workspace root sits inside the copy ('' unless the root is a subfolder of its repository). */
  base: string;
  branch?: string;
}

const STATE = '.state';

/** The agents folder for a configured root: `agentsDir` absolute, or relative to the root (default `.agents`). */
export function agentsFolder(root: string, agentsDir = '.agents'): string {
  return agentsDir.startsWith('/') ? normalize(agentsDir) : join(normalize(root), agentsDir);
}

export function createAgentCopies(options: AgentCopiesOptions): AgentCopies {
  const { fs, unrestricted = false, worktrees } = options;
  const configuredRoot = normalize(options.configuredRoot);
  const configuredDir = normalize(options.dir);
  let realDir: string | undefined;
  /** One create or remove at a time per agent id, so two creates cannot both succeed. */
  const busy = new Map<string, Promise<unknown>>();
  const overlays = new Map<string, Promise<OverlayFileSystem>>();

  async function paths(): Promise<{ root: string; dir: string }> {
    const root = await options.root();
    realDir = isInside(configuredRoot, configuredDir) ? join(root, relativeTo(configuredRoot, configuredDir)) : configuredDir;
    if (!isInside(root, realDir)) await confineDir(realDir);
    return { root, dir: realDir };
  }

  // A folder outside the root is confined too (FileSystem.confine), once it exists and if it is a real path (a
  // caller's path through a link would name nothing the check could match).
  let confinedDir: string | undefined;
  async function confineDir(dir: string): Promise<void> {
    if (unrestricted || !fs.confine || confinedDir === dir) return;
    try {
      if ((await fs.realpath(dir)) === dir) fs.confine(dir);
      confinedDir = dir;
    } catch {
      // Not made yet: the next call looks again.
    }
  }

  const copyOf = (dir: string, agent: string) => join(dir, agent);
  const recordFile = (dir: string, agent: string) => join(dir, STATE, `${agent}.json`);
  const whiteoutFile = (dir: string, agent: string) => join(dir, STATE, `${agent}.whiteouts.json`);

  function exclusively<T>(agent: string, work: () => Promise<T>): Promise<T> {
    const next = (busy.get(agent) ?? Promise.resolve()).catch(() => {}).then(work);
    busy.set(agent, next);
    void next.finally(() => {
      if (busy.get(agent) === next) busy.delete(agent);
    }).catch(() => {});
    return next;
  }

  async function isFolder(path: string): Promise<boolean> {
    try {
      return (await fs.stat(path)).type === 'dir';
    } catch (error) {
      if (isFsError(error, 'not-found') || isFsError(error, 'not-directory')) return false;
      throw error;
    }
  }

  async function readRecord(dir: string, agent: string): Promise<CopyRecord> {
    try {
      const parsed = JSON.parse(new TextDecoder().decode(await fs.read(recordFile(dir, agent)))) as Partial<CopyRecord>;
      if (parsed.kind === 'worktree' || parsed.kind === 'copy') {
        return { kind: parsed.kind, base: typeof parsed.base === 'string' ? parsed.base : '', branch: parsed.branch };
      }
    } catch (error) {
      if (!isFsError(error, 'not-found') && !(error instanceof SyntaxError)) throw error;
    }
    // No record (a copy made by hand, or a crash before it was written): a worktree has a `.git` file.
    const dotGit = await fs.lstat(join(copyOf(dir, agent), '.git')).catch(() => undefined);
    return dotGit?.type === 'file' ? { kind: 'worktree', base: '', branch: `agent/${agent}` } : { kind: 'copy', base: '' };
  }

  async function removeQuietly(path: string): Promise<void> {
    await fs.remove(path, { recursive: true }).catch((error: unknown) => {
      if (!isFsError(error, 'not-found')) throw error;
    });
  }

  async function openOverlay(root: string, dir: string, agent: string): Promise<OverlayFileSystem> {
    const record = await readRecord(dir, agent);
    const copy = copyOf(dir, agent);
    const overlay = new OverlayFileSystem({
      lower: fs,
      upper: fs,
      root,
      upperRoot: record.base === '' ? copy : join(copy, record.base),
      whiteouts: await loadWhiteoutFile(fs, whiteoutFile(dir, agent)),
      hidden: [dir],
    });
    // The overlay follows links itself, then hands the layers the path it ended at: it checks that end.
    if (!unrestricted) overlay.confine(root);
    return overlay;
  }

  async function worktreeRepository(root: string): Promise<GitRepository | undefined> {
    return worktrees ? worktrees.repositoryOf(root) : undefined;
  }

  async function makeWorktree(repository: GitRepository, root: string, dir: string, agent: string): Promise<CopyRecord> {
    const branch = `agent/${agent}`;
    try {
      await worktrees!.add(repository, copyOf(dir, agent), branch);
    } catch (error) {
      await removeQuietly(copyOf(dir, agent)).catch(() => {});
      throw new WorkspaceError('internal', `could not create the agent's git worktree: ${(error as Error).message}`, { agent });
    }
    // The agents folder inside the repository would otherwise show in the main worktree's `git status`.
    if (isInside(repository.toplevel, dir) && dir !== repository.toplevel) {
      await worktrees!.exclude(repository, `/${relativeTo(repository.toplevel, dir)}/`).catch(() => {});
    }
    return { kind: 'worktree', base: relativeTo(repository.toplevel, root), branch };
  }

  async function makePlainCopy(root: string, dir: string, agent: string): Promise<CopyRecord> {
    const incoming = join(dir, `.incoming-${agent}-${crypto.randomUUID()}`);
    try {
      await copySharedTree(fs, root, incoming, { skip: dir, caps: options.copyCaps });
      await fs.rename(incoming, copyOf(dir, agent));
    } catch (error) {
      await removeQuietly(incoming).catch(() => {});
      if (isFsError(error, 'exists')) throw new WorkspaceError('conflict', `agent already exists: ${agent}`, { agent });
      throw error;
    }
    return { kind: 'copy', base: '' };
  }

  const sharedView = async (): Promise<WorkspaceView> => {
    const { root, dir } = await paths();
    return {
      fs,
      root,
      agent: undefined,
      resolve: (path) => resolveInsideRoot(fs, root, path, { unrestricted }),
      isShared: async () => true,
      mapChange: async (change) => sharedViewOfChange(change, dir),
    };
  };

  return {
    get dir() {
      return realDir ?? configuredDir;
    },

    async view(agent) {
      if (agent === undefined) return sharedView();
      checkAgentId(agent);
      const { root, dir } = await paths();
      if (!(await isFolder(copyOf(dir, agent)))) {
        overlays.delete(agent);
        throw unknownAgent(agent);
      }
      let opening = overlays.get(agent);
      if (!opening) {
        opening = openOverlay(root, dir, agent);
        overlays.set(agent, opening);
        opening.catch(() => overlays.delete(agent));
      }
      const overlay = await opening;
      const absolute = (path: string) => (path.startsWith('/') ? path : join(root, path));
            return {
        fs: overlay,
        root,
        agent,
        resolve: (path) => resolveInsideRoot(overlay, root, path, { unrestricted }),
        isShared: async (path) => (await overlay.layerOf(absolute(path))) === 'lower',
        mapChange: (change) => agentViewOfChange(change, { dir, overlay }),
      };
    },

    async create(agent) {
      checkAgentId(agent);
      return exclusively(agent, async () => {
        const { root, dir } = await paths();
        if (isInside(dir, root)) throw new WorkspaceError('internal', 'the agents folder must not contain the workspace root');
        if (await isFolder(copyOf(dir, agent))) throw new WorkspaceError('conflict', `agent already exists: ${agent}`, { agent });
        await fs.mkdir(join(dir, STATE), { recursive: true });
        // Whatever an earlier agent of this id left behind (a crash mid-removal) must not leak into this one.
        await removeQuietly(whiteoutFile(dir, agent));
        overlays.delete(agent);
        const repository = await worktreeRepository(root);
        const record = repository ? await makeWorktree(repository, root, dir, agent) : await makePlainCopy(root, dir, agent);
        await fs.write(recordFile(dir, agent), JSON.stringify(record));
      });
    },

    async remove(agent) {
      checkAgentId(agent);
      return exclusively(agent, async () => {
        const { root, dir } = await paths();
        const copy = copyOf(dir, agent);
        if (!(await isFolder(copy))) throw unknownAgent(agent);
        const record = await readRecord(dir, agent);
        overlays.delete(agent);
        const repository = record.kind === 'worktree' ? await worktreeRepository(root) : undefined;
        if (repository) await worktrees!.remove(repository, copy, record.branch ?? `agent/${agent}`);
        // A plain copy, or a worktree git did not know (any more): the folder goes through the FileSystem.
        await removeQuietly(copy);
        await removeQuietly(whiteoutFile(dir, agent));
        await removeQuietly(recordFile(dir, agent));
      });
    },

    async list() {
      const { dir } = await paths();
      try {
        const entries = await fs.readdir(dir);
        return entries
          .filter((entry) => entry.type === 'dir' && AGENT_ID_PATTERN.test(entry.name))
          .map((entry) => entry.name)
          .sort();
      } catch (error) {
        if (isFsError(error, 'not-found')) return [];
        throw error;
      }
    },
  };
}
