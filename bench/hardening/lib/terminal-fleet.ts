/**
 * The run's terminals, all opened before the load and kept until the end: reading clients, and clients that never
 * read (their socket paused from the start). Opening is bounded (`concurrency` at a time); a reader counts as open
 * once its first output has arrived, so an open fleet is one that streams. Nothing is replaced during the run: the
 * load's window then measures clients being held, not clients connecting.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { openBounded, type BoundedOpen } from './bounded.ts';
import type { Tally } from './tally.ts';
import { openTerminalClient, type TerminalClient, type TerminalTransport } from './terminal-clients.ts';

export interface FleetOptions {
  baseUrl: string;
  token: string;
  tally: Tally;
  /** Clients per transport. */
  readers: Record<TerminalTransport, number>;
  nonReaders: Record<TerminalTransport, number>;
  /** Command line a reading client's terminal runs. */
  readerCommand: string;
  /** Command line the never-reading client `name` runs (it names the client: ./non-reader-check.ts finds it so). */
  nonReaderCommand: (name: string) => string;
  concurrency: number;
  /** How long a reader may take to show its first output. */
  firstOutputMs: number;
}

export interface TerminalFleet {
  readers: TerminalClient[];
  nonReaders: TerminalClient[];
  readersOpen: BoundedOpen;
  nonReadersOpen: BoundedOpen;
  stop(): Promise<void>;
}

const TRANSPORTS: TerminalTransport[] = ['ori', 'named', 'rpc'];

function plan(counts: Record<TerminalTransport, number>, prefix: string): { transport: TerminalTransport; name: string }[] {
  return TRANSPORTS.flatMap((transport) => Array.from({ length: counts[transport] }, (_, i) => ({ transport, name: `${prefix}-${transport}-${i}` })));
}

export async function openTerminalFleet(options: FleetOptions): Promise<TerminalFleet> {
  const { baseUrl, token, tally } = options;
  const readers: TerminalClient[] = [];
  const nonReaders: TerminalClient[] = [];
  const readerPlan = plan(options.readers, 'reader');
  const readersOpen = await openBounded(
    'terminal reader',
    readerPlan.length,
    options.concurrency,
    async (index) => {
      const { transport, name } = readerPlan[index]!;
      const client = await openTerminalClient({ baseUrl, token, transport, name, command: options.readerCommand, reading: true, tally });
      const deadline = performance.now() + options.firstOutputMs;
      while (client.lastOutputAt() === 0 && performance.now() < deadline) await sleep(100);
      if (client.lastOutputAt() === 0) {
        await client.stop();
        throw new Error(`${name}: no output within ${options.firstOutputMs} ms`);
      }
      return client;
    },
    (client) => readers.push(client),
  );
  const nonReaderPlan = plan(options.nonReaders, 'nonreader');
  const nonReadersOpen = await openBounded(
    'never-reading terminal',
    nonReaderPlan.length,
    options.concurrency,
    (index) => {
      const { transport, name } = nonReaderPlan[index]!;
      return openTerminalClient({ baseUrl, token, transport, name, command: options.nonReaderCommand(name), reading: false, tally });
    },
    (client) => nonReaders.push(client),
  );
  return {
    readers,
    nonReaders,
    readersOpen,
    nonReadersOpen,
    async stop() {
      await Promise.allSettled([...nonReaders, ...readers].map((client) => client.stop()));
    },
  };
}
