/**
 * One long-lived `<agent> serve --port 0` per agent (docs/noide-protocol.md#the-agent-server): started on the
 * first chat, its port read from its output (the first `127.0.0.1:<port>` in its first 40 lines), reused while
 * it runs, started again on the next chat once it has died. Ours: concurrent first chats share one start, and
 * finding the port is bounded in time. Cancels and closed sockets never stop it; `close` does (TERM, then KILL).
 */
import type { ChatHost, ChatProcess } from '../../adapters/process/chat-host.ts';
import { ChatError, type ChatAgent } from './chat-types.ts';
import { LineSplitter } from './line-splitter.ts';

const PORT_LINES = 40;
const PORT_PATTERN = /127\.0\.0\.1:(\d+)/;

export interface ServerStart {
  /** The agent's executable, found by find-agent.ts. */
  file: string;
  env: Record<string, string>;
}

interface RunningServer {
  process: ChatProcess;
  url: string;
}

export interface AgentServersOptions {
  host: ChatHost;
  /** The workspace root: where the servers run. */
  cwd: string;
  /** How long a server may take to print its port. */
  startTimeoutMs: number;
  killGraceMs: number;
}

export class AgentServers {
  readonly #servers = new Map<ChatAgent, Promise<RunningServer>>();
  /** Servers started and not yet serving: `close` stops them too, so a shutdown never waits for a port. */
  readonly #starting = new Set<ChatProcess>();
  #closed = false;

  constructor(private readonly options: AgentServersOptions) {}

  /** The agent server's URL, starting it if none runs. Throws ChatError with the protocol's texts. */
  async url(agent: ChatAgent, start: () => Promise<ServerStart>): Promise<string> {
    const current = this.#servers.get(agent);
    if (current !== undefined) {
      // A start that fails fails every chat that waited on it; the next chat tries again.
      const server = await current;
      if (server.process.alive()) return server.url;
      // Died: whoever comes first starts the next one; the others share it. One that is dead but not reaped yet is
      // stopped first, so nothing of its group is left.
      if (this.#servers.get(agent) === current) {
        this.#servers.delete(agent);
        await server.process.stop(this.options.killGraceMs);
      }
      return this.url(agent, start);
    }
    if (this.#closed) throw new ChatError('agent chat has shut down');
    const starting = start().then((how) => this.#start(agent, how));
    this.#servers.set(agent, starting);
    starting.catch(() => {
      if (this.#servers.get(agent) === starting) this.#servers.delete(agent);
    });
    return (await starting).url;
  }

  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all([...this.#starting].map((process) => process.stop(this.options.killGraceMs)));
    const servers = await Promise.all([...this.#servers.values()].map((server) => server.catch(() => undefined)));
    this.#servers.clear();
    await Promise.all(servers.map((server) => server?.process.stop(this.options.killGraceMs)));
  }

  async #start(agent: ChatAgent, how: ServerStart): Promise<RunningServer> {
    let process: ChatProcess;
    try {
      process = await this.options.host.spawn({ file: how.file, args: ['serve', '--port', '0'], cwd: this.options.cwd, env: how.env, stderr: 'ignore' });
    } catch (error) {
      throw new ChatError(`Failed to start ${agent} server: ${error instanceof Error ? error.message : String(error)}`);
    }
    const server: RunningServer = { process, url: '' };
    this.#starting.add(process);
    try {
      server.url = `http://127.0.0.1:${await this.#port(agent, process)}`;
    } catch (error) {
      await process.stop(this.options.killGraceMs);
      throw error;
    } finally {
      this.#starting.delete(process);
    }
    if (this.#closed) {
      await process.stop(this.options.killGraceMs);
      throw new ChatError('agent chat has shut down');
    }
    return server;
  }

  /** Reads the server's output until a port shows; its output keeps being drained afterwards. */
  #port(agent: ChatAgent, process: ChatProcess): Promise<number> {
    return new Promise((resolve, reject) => {
      let lines = 0;
      let settled = false;
      const fail = () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        reject(new ChatError(`could not determine ${agent} server port from its output`));
      };
      const timer = setTimeout(fail, this.options.startTimeoutMs);
      const splitter = new LineSplitter((line) => {
        if (settled) return;
        const match = PORT_PATTERN.exec(line);
        if (match !== null && Number(match[1]) > 0 && Number(match[1]) < 65536) {
          settled = true;
          clearTimeout(timer);
          resolve(Number(match[1]));
        } else if (++lines >= PORT_LINES) fail();
      });
      process.stdout.onData((chunk) => {
        if (!settled) splitter.push(chunk);
      });
      process.stdout.onEnd(() => {
        splitter.end();
        fail();
      });
    });
  }
}
