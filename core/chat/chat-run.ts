/**
 * One `chat_stream` run (docs/noide-protocol.md#chat_stream), from its attachments to its one `done`: the agent
 * found, its server running, the CLI started with `--attach` in a process group of its own, each line of its
 * stdout and stderr relayed as a chunk — its pipes paused while the reader is behind —, then `done` once it has
 * exited and its output is read (up to 2 s of flowing output after the exit), its attachment files removed first.
 */
import type { ChatHost, ChatPipe, ChatProcess, ChatTempFolder } from '../../adapters/process/chat-host.ts';
import type { AgentServers } from './agent-servers.ts';
import { decodeAttachments } from './attachments.ts';
import { runArgv } from './chat-argv.ts';
import { chatEnv } from './chat-env.ts';
import { ChatError, type ChatAgent, type ChatSink, type ChatStreamRequest } from './chat-types.ts';
import { LineSplitter } from './line-splitter.ts';

/** After the CLI exits, how long its pipes may keep flowing before they are cut (a child may hold them open). */
const DRAIN_AFTER_EXIT_MS = 2000;

export interface RunParts {
  host: ChatHost;
  servers: AgentServers;
  /** The agent's executable, or the protocol's error text. */
  executable(agent: ChatAgent): Promise<string>;
  killGraceMs: number;
  timeoutMs: number;
}

/** A run's handle in the engine's table: `cancel` reaches the process through it. */
export interface RunHandle {
  process: ChatProcess | undefined;
  /** Cancelled before its process existed: it is stopped as soon as it spawns (or never spawned). */
  cancelled: boolean;
}

export async function runChat(parts: RunParts, request: ChatStreamRequest, sink: ChatSink, handle: RunHandle): Promise<void> {
  let folder: ChatTempFolder | undefined;
  let error: string | undefined;
  try {
    error = await startAndRelay(parts, request, sink, handle, (made) => (folder = made));
  } catch (thrown) {
    error = thrown instanceof ChatError ? thrown.message : `Failed to run ${request.agent}: ${thrown instanceof Error ? thrown.message : String(thrown)}`;
  } finally {
    await folder?.remove().catch(() => {});
  }
  sink.done(error);
}

/** Resolves to the run's `done` error (undefined for exit 0). */
async function startAndRelay(
  parts: RunParts,
  request: ChatStreamRequest,
  sink: ChatSink,
  handle: RunHandle,
  madeFolder: (folder: ChatTempFolder) => void,
): Promise<string | undefined> {
  const { agent } = request;
  const decoded = decodeAttachments(request.attachments);
  if (!decoded.ok) return decoded.error;
  const file = await parts.executable(agent);
  const env = chatEnv(parts.host.baseEnv(), { agent, apiKey: request.apiKey, mode: request.mode });
  const serverUrl = await parts.servers.url(agent, async () => ({ file, env }));
  if (handle.cancelled) return killedText(agent);

  const files: string[] = [];
  if (decoded.files.length > 0) {
    const folder = await parts.host.tempFolder();
    madeFolder(folder);
    for (const attachment of decoded.files) files.push(await folder.write(attachment.fileName, attachment.bytes));
  }
  if (handle.cancelled) return killedText(agent);

  // A spawn that fails throws: runChat says `Failed to run <agent>: <reason>`.
  const process = await parts.host.spawn({ file, args: runArgv(request.args, serverUrl, files), cwd: request.cwd, env, stderr: 'pipe' });
  handle.process = process;
  if (handle.cancelled) void process.stop(parts.killGraceMs);

  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    void process.stop(parts.killGraceMs);
  }, parts.timeoutMs);
  try {
    const { code } = await relay(process, sink);
    if (timedOut) return `${agent} timed out after ${Math.round(parts.timeoutMs / 100) / 10} s`;
    return code === 0 ? undefined : `${agent} exited with code ${code ?? -1}`;
  } finally {
    clearTimeout(timer);
    // Whatever the CLI left running in its group goes with it.
    if (process.alive()) await process.stop(parts.killGraceMs);
  }
}

function killedText(agent: ChatAgent): string {
  return `${agent} exited with code -1`;
}

/**
 * Relays both pipes line by line until the process has exited and both pipes have ended (or were cut, 2 s of
 * flowing time after the exit). While the sink is congested both pipes are paused: a CLI writing to a client
 * that does not read then blocks on its own pipe instead of growing the daemon's memory.
 */
function relay(process: ChatProcess, sink: ChatSink): Promise<{ code: number | null }> {
  const pipes: [ChatPipe, 'stdout' | 'stderr'][] = [[process.stdout, 'stdout']];
  if (process.stderr) pipes.push([process.stderr, 'stderr']);
  let paused = false;
  let stopWaiting: (() => void) | undefined;
  const waitForDrain = () => {
    stopWaiting = sink.onDrain(() => {
      stopWaiting?.();
      stopWaiting = undefined;
      if (sink.congested) return waitForDrain();
      paused = false;
      for (const [pipe] of pipes) pipe.resume();
    });
  };
  const throttle = () => {
    if (paused || !sink.congested) return;
    paused = true;
    for (const [pipe] of pipes) pipe.pause();
    waitForDrain();
  };

  return new Promise((resolve) => {
    let open = pipes.length;
    let exit: { code: number | null } | undefined;
    let cutTimer: ReturnType<typeof setTimeout> | undefined;
    const splitters = pipes.map(([, stream]) => new LineSplitter((line) => sink.chunk(stream, line)));
    const finish = () => {
      if (open > 0 || exit === undefined) return;
      clearTimeout(cutTimer);
      stopWaiting?.();
      resolve(exit);
    };
    pipes.forEach(([pipe], index) => {
      pipe.onData((chunk) => {
        splitters[index]!.push(chunk);
        throttle();
      });
      pipe.onEnd(() => {
        splitters[index]!.end();
        open--;
        finish();
      });
    });
    // The grace counts flowing time only: a reader that is behind still gets every line.
    const armCut = () => {
      cutTimer = setTimeout(() => {
        if (paused) return armCut();
        for (const [pipe] of pipes) pipe.destroy();
      }, DRAIN_AFTER_EXIT_MS);
    };
    void process.exited.then(({ code }) => {
      exit = { code };
      if (open > 0) armCut();
      finish();
    });
  });
}
