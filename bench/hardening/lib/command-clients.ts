/**
 * `/ws` clients that stay connected and now and then send one command, as idle editor tabs do: a file check, a
 * read, a folder listing, a search, a small write. Every reply that is not ok, and every reply that does not come,
 * is an error.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { openBounded, type BoundedOpen } from './bounded.ts';
import type { Tally } from './tally.ts';
import { WsRpc } from './ws-rpc.ts';

export interface CommandClientsOptions {
  baseUrl: string;
  token: string;
  count: number;
  /** A command every `pauseMs[0]…pauseMs[1]` ms per client. */
  pauseMs: [number, number];
  files: string[];
  dirs: string[];
  tally: Tally;
}

const pick = <T>(list: readonly T[]): T => list[Math.floor(Math.random() * list.length)]!;

function nextCommand(options: CommandClientsOptions, index: number): [string, Record<string, unknown>] {
  const r = Math.random() * 100;
  if (r < 35) return ['file_exists', { path: pick(options.files) }];
  if (r < 60) return ['read_file', { path: pick(options.files) }];
  if (r < 75) return ['read_directory', { path: pick(options.dirs), maxDepth: 1 }];
  if (r < 83) return ['list_files', { path: pick(options.dirs) }];
  if (r < 88) return ['search_in_files', { path: pick(options.dirs), query: `charlie_${Math.floor(Math.random() * 64)}` }];
  if (r < 95) return ['write_file', { path: `scratch-ws/client${index % 64}.txt`, content: `client ${index} at ${Date.now()}\n` }];
  return ['get_cwd', {}];
}

export interface CommandClients {
  /** How many connected and answered a first `get_cwd`, and what went wrong for the others. */
  readonly connect: BoundedOpen;
  /** Starts every client's command loop. */
  start(): void;
  /** Stops every loop and closes every socket on purpose. */
  stop(): Promise<void>;
}

/**
 * Connects `count` clients, `concurrency` at a time (a fleet of tabs does not open in the same millisecond), each
 * verified by one answered `get_cwd`; the loops wait for `start()`, so connecting and loading are separate phases.
 */
export async function connectCommandClients(options: CommandClientsOptions & { concurrency: number }): Promise<CommandClients> {
  const { tally } = options;
  const clients: WsRpc[] = [];
  let running = false;
  const loops: Promise<void>[] = [];
  const connect = await openBounded(
    '/ws command client',
    options.count,
    options.concurrency,
    async () => {
      const client = await WsRpc.connect(options.baseUrl, options.token);
      try {
        await client.ok('get_cwd');
      } catch (error) {
        await client.close();
        throw error;
      }
      client.onUnexpectedClose = (code) => tally.error('/ws command client closed unexpectedly', `close ${code}`);
      return client;
    },
    (client) => clients.push(client),
  );
  tally.count('/ws command clients connected', clients.length);
  const [low, high] = options.pauseMs;
  const loop = async (client: WsRpc, index: number) => {
    // Spread the first commands over one pause, so the fleet does not fire in lockstep.
    await sleep(Math.random() * high);
    while (running && client.open) {
      const [command, args] = nextCommand(options, index);
      try {
        const reply = await client.call(command, args);
        if (reply.ok) tally.count('/ws commands answered');
        // search_in_files has a documented 10 s budget (docs/noide-protocol.md#search_in_files): on a starved
        // machine it answers so rather than with a partial list; that is a documented refusal, not an error.
        else if (command === 'search_in_files' && /^Search timed out after/.test(reply.error ?? '')) tally.count('documented: search_in_files over its 10 s budget');
        else tally.error(`/ws ${command} failed`, reply.error);
      } catch (error) {
        if (running) tally.error(`/ws ${command} unanswered`, error);
      }
      await sleep(low + Math.random() * (high - low));
    }
  };
  return {
    connect,
    start() {
      running = true;
      clients.forEach((client, index) => loops.push(loop(client, index)));
    },
    async stop() {
      running = false;
      await Promise.all(clients.map((client) => client.close()));
      await Promise.race([Promise.all(loops), sleep(5000)]);
    },
  };
}
