import { messageOf } from '../shared/errors.ts';
import { relativePath } from '../shared/paths.ts';
import type { PanelContext } from '../shell/panel-context.ts';
import { eventStreamData } from './event-stream.ts';

/** One frame of `GET /workspace-files/changes` (docs/workspace-files.md#changes). */
type Frame =
  | { kind: 'ready' }
  | { kind: 'resync' }
  | { kind: 'change'; change: { absolutePath: string; version?: string; absent?: true } };

const MIN_DELAY_MS = 250;
const MAX_DELAY_MS = 10_000;

/**
 * The live change feed: `GET /workspace-files/changes` read as a stream (fetch with the Authorization header,
 * the event stream parsed here, since `EventSource` sends no headers), each change told to the other parts as
 * `fs-change` with a root-relative path, and each git frame (`<repo>/.git`) told to the git badges. The stream is
 * reopened with a growing delay (250 ms doubling to 10 s) when it drops; a reopened stream may have missed
 * changes, so its `ready` is told as a `resync`, like the daemon's own.
 *
 * While it runs, the panel's root element carries `data-change-feed`: `connecting`, then `ready` once the
 * daemon said everything from then on is reported.
 */
export function mountChangeFeed(ctx: PanelContext): void {
  const abort = new AbortController();
  ctx.events.on('unauthorized', () => abort.abort());
  void run(ctx, abort.signal);
}

async function run(ctx: PanelContext, signal: AbortSignal): Promise<void> {
  const root = ctx.shell.root;
  let rootPath: string | undefined;
  let delay = MIN_DELAY_MS;
  let wasReady = false;
  let lost = false;
  /** Paths the feed last saw gone: their next appearance is a creation (the feed itself does not say). */
  const gone = new Set<string>();

  while (!signal.aborted) {
    root.dataset.changeFeed = 'connecting';
    try {
      rootPath ??= await workspaceRoot(ctx, signal);
      const response = await ctx.client.request('GET /workspace-files/changes', { signal });
      if (response.status === 401) return; // the shell shows the sign-in screen
      if (!response.ok || !response.body) {
        await response.body?.cancel();
        throw new Error(`${response.status} ${response.statusText}`);
      }
      for await (const data of eventStreamData(response.body)) {
        const frame = parseFrame(data);
        if (!frame) continue;
        if (frame.kind === 'ready') {
          root.dataset.changeFeed = 'ready';
          delay = MIN_DELAY_MS;
          if (lost) ctx.status('Live updates are back.');
          lost = false;
          if (wasReady) resync(ctx, gone);
          wasReady = true;
        } else if (frame.kind === 'resync') {
          resync(ctx, gone);
        } else {
          const path = relativePath(rootPath, frame.change.absolutePath);
          if (path === undefined) continue;
          if (path === '.git' || path.endsWith('/.git')) {
            ctx.events.emit('git-change', { repo: path === '.git' ? '.' : path.slice(0, -'/.git'.length) });
            continue;
          }
          if (frame.change.absent) {
            gone.add(path);
            ctx.events.emit('fs-change', { path, kind: 'deleted' });
          } else {
            const kind = gone.delete(path) ? 'created' : 'modified';
            ctx.events.emit('fs-change', { path, kind });
          }
        }
      }
    } catch (error) {
      if (signal.aborted) return;
      if (!lost) ctx.status(`Live updates lost (${messageOf(error)}); reconnecting…`, 'error');
      lost = true;
    }
    if (signal.aborted) return;
    root.dataset.changeFeed = 'connecting';
    await sleep(delay, signal);
    delay = Math.min(delay * 2, MAX_DELAY_MS);
  }
}

function resync(ctx: PanelContext, gone: Set<string>): void {
  gone.clear();
  ctx.events.emit('fs-change', { path: '.', kind: 'resync' });
}

/** The root's real absolute path, which the feed's paths start with (ori's listing answers it). */
async function workspaceRoot(ctx: PanelContext, signal: AbortSignal): Promise<string> {
  const listing = await ctx.client.call('GET /api/files', { query: { path: '.' }, signal });
  return listing.path;
}

function parseFrame(data: string): Frame | undefined {
  try {
    const frame = JSON.parse(data) as Frame;
    return typeof frame === 'object' && frame !== null && typeof frame.kind === 'string' ? frame : undefined;
  } catch {
    return undefined;
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}
