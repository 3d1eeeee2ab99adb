/**
 * The write load of the kill-under-load harness: workers drive every write route of the daemon at once — ori's
 * `PUT /api/file`, Intentic's `POST /workspace/upload`, `/workspace/move` and `/workspace/copy`, and `/ws`'s
 * `write_file`, `upload_file`, `rename_entry`, `copy_entry` and `extract_zip` — each write one whole version
 * (./versioned-content.ts), told to the ledger (./write-ledger.ts) before it is sent and when it is acknowledged.
 * A round ends when the daemon dies under it (its requests fail) or when it has sent as many writes as asked.
 */
import { buildZip, file } from '../zip-writer.ts';
import type { ContentFactory, Version } from './versioned-content.ts';
import { ABSENT, WriteLedger } from './write-ledger.ts';
import { SocketClient } from './socket-client.ts';
import { HttpWrites, Refused, SocketWrites, type Daemon } from './write-routes.ts';

export interface LoadConfig {
  /** Files rewritten in place, one write at a time each. */
  fileSlots: number;
  /** Folders a zip is extracted into again and again. */
  zipSlots: number;
  /** Workers, each with one write in flight (and its own socket). */
  concurrency: number;
  /** Payload cap of a direct write; sizes lean small (u⁶ of it: mean a seventh), a few near it. Under 1 MiB: search reads it. */
  maxWriteBytes: number;
  /** Payload cap of a moved or copied file and of a zip entry. */
  smallBytes: number;
}

type Operation = 'put' | 'upload' | 'ws-write' | 'ws-upload' | 'move' | 'copy' | 'zip';
/** How often each operation is picked: the plain writes most, every route often. */
const WEIGHTS: [Operation, number][] = [
  ['put', 22],
  ['upload', 18],
  ['ws-write', 14],
  ['ws-upload', 10],
  ['move', 12],
  ['copy', 12],
  ['zip', 12],
];

export class WriteLoad {
  attempted = 0;
  acknowledged = 0;
  /** Failures the daemon answered (not connections cut by a kill): none are expected. */
  readonly refusals: string[] = [];
  readonly #versions = new Map<string, number>();
  readonly #busy = new Set<string>();
  #moves = 0;
  #copies = 0;

  constructor(
    readonly ledger: WriteLedger,
    private readonly factory: ContentFactory,
    private readonly random: () => number,
    private readonly config: LoadConfig,
  ) {}

  /**
   * Runs workers against `daemon` until it dies or `stopAtAttempts` writes were sent in all; `onAttempt` hears
   * every write sent (the harness times its kills from it).
   */
  async round(daemon: Daemon, stopAtAttempts: number, onAttempt: (attempted: number) => void = () => {}): Promise<void> {
    let alive = true;
    const worker = async () => {
      let socket: SocketClient | undefined;
      try {
        socket = await SocketClient.connect(daemon.url, daemon.token);
        while (alive && this.attempted < stopAtAttempts) {
          try {
            await this.#operate(daemon, socket, this.#pick(), onAttempt);
          } catch (error) {
            if (!(error instanceof Refused)) throw error;
            this.refusals.push(error.message);
          }
        }
      } catch {
        alive = false; // the connection failed: the daemon is gone; every worker stops
      } finally {
        socket?.close();
      }
    };
    await Promise.all(Array.from({ length: this.config.concurrency }, worker));
  }

  #pick(): Operation {
    let roll = this.random() * WEIGHTS.reduce((sum, [, weight]) => sum + weight, 0);
    for (const [operation, weight] of WEIGHTS) if ((roll -= weight) < 0) return operation;
    return 'put';
  }

  async #operate(daemon: Daemon, socket: SocketClient, operation: Operation, onAttempt: (attempted: number) => void): Promise<void> {
    const send = async <T>(request: () => Promise<T>): Promise<T> => {
      this.attempted += 1;
      onAttempt(this.attempted);
      const answer = await request();
      this.acknowledged += 1;
      return answer;
    };
    const http = new HttpWrites(daemon, send);
    const ws = new SocketWrites(socket, send);
    if (operation === 'move') return this.#move(http, ws);
    if (operation === 'copy') return this.#copy(http, ws);
    if (operation === 'zip') return this.#zip(ws);
    const slot = this.#lockFreeSlot('f', this.config.fileSlots);
    if (slot === undefined) return;
    try {
      const path = `files/d${slot % 10}/f${slot}.txt`;
      const version = this.#version(`f${slot}`, this.#writeSize());
      this.ledger.attempt(path, version.key);
      if (operation === 'put') await http.put(path, version);
      else if (operation === 'upload') await http.upload(path, version);
      else if (operation === 'ws-write') await ws.write(path, version);
      else await ws.upload(path, version);
      this.ledger.acknowledge(path, version.key);
    } finally {
      this.#busy.delete(`f${slot}`);
    }
  }

  /** Writes a fresh file, then moves it to a fresh name (Intentic's move or `/ws` rename_entry, by turns). */
  async #move(http: HttpWrites, ws: SocketWrites): Promise<void> {
    const n = this.#moves++;
    const from = `moves/src/m${n}.txt`;
    const to = `moves/dst/m${n}.txt`;
    const version = this.#version(`m${n}`, this.#smallSize());
    this.ledger.attempt(from, version.key);
    await (n % 2 === 0 ? http.put(from, version) : ws.write(from, version));
    this.ledger.acknowledge(from, version.key);
    const pair = { from, to, acknowledged: false };
    this.ledger.moves.push(pair);
    this.ledger.attempt(to, version.key);
    this.ledger.statesOf(from).add(ABSENT);
    await (n % 2 === 0 ? http.call('/workspace/move', { from, to }) : ws.call('rename_entry', { from, to }));
    this.ledger.acknowledge(to, version.key);
    this.ledger.observe(from, ABSENT);
    pair.acknowledged = true;
  }

  /** Writes a fresh folder of two files, then copies it whole (Intentic's copy or `/ws` copy_entry, by turns). */
  async #copy(http: HttpWrites, ws: SocketWrites): Promise<void> {
    const n = this.#copies++;
    const names = ['a.txt', 'b.txt'];
    const versions = names.map((name) => this.#version(`c${n}${name[0]}`, this.#smallSize()));
    for (const [i, name] of names.entries()) {
      const path = `copies/src/c${n}/${name}`;
      this.ledger.attempt(path, versions[i]!.key);
      await (i === 0 ? http.upload(path, versions[i]!) : ws.upload(path, versions[i]!));
      this.ledger.acknowledge(path, versions[i]!.key);
    }
    const copy = { files: names.map((name) => `copies/dst/c${n}/${name}`), acknowledged: false };
    this.ledger.copies.push(copy);
    copy.files.forEach((path, i) => this.ledger.attempt(path, versions[i]!.key));
    const from = `copies/src/c${n}`;
    const to = `copies/dst/c${n}`;
    await (n % 2 === 0 ? http.call('/workspace/copy', { from, to }) : ws.call('copy_entry', { from, to }));
    copy.files.forEach((path, i) => this.ledger.acknowledge(path, versions[i]!.key));
    copy.acknowledged = true;
  }

  /** Extracts a zip of 1–4 files over the last one extracted into the same folder. */
  async #zip(ws: SocketWrites): Promise<void> {
    const slot = this.#lockFreeSlot('z', this.config.zipSlots);
    if (slot === undefined) return;
    try {
      const entries = 1 + (slot % 4);
      const versions = Array.from({ length: entries }, (_, j) => this.#version(`z${slot}e${j}`, this.#smallSize()));
      const zip = buildZip(versions.map((version, j) => file(`e${j}.txt`, version.bytes, { method: 'store' })));
      versions.forEach((version, j) => this.ledger.attempt(`zips/z${slot}/e${j}.txt`, version.key));
      await ws.call('extract_zip', { zipContent: Buffer.from(zip).toString('base64'), destDir: `zips/z${slot}` });
      versions.forEach((version, j) => this.ledger.acknowledge(`zips/z${slot}/e${j}.txt`, version.key));
    } finally {
      this.#busy.delete(`z${slot}`);
    }
  }

  /** A random slot no other worker is writing (a few tries; none free → skip this turn). */
  #lockFreeSlot(prefix: string, slots: number): number | undefined {
    for (let tries = 0; tries < 8; tries++) {
      const slot = Math.floor(this.random() * slots);
      if (this.#busy.has(`${prefix}${slot}`)) continue;
      this.#busy.add(`${prefix}${slot}`);
      return slot;
    }
    return undefined;
  }

  #version(lineage: string, payloadBytes: number): Version & { key: string } {
    const number = (this.#versions.get(lineage) ?? 0) + 1;
    this.#versions.set(lineage, number);
    const version = this.factory.make(lineage, number, payloadBytes);
    const key = WriteLedger.key(lineage, number);
    this.ledger.record(key, version.sha256);
    return { ...version, key };
  }

  #writeSize(): number {
    return Math.floor(this.config.maxWriteBytes * this.random() ** 6);
  }

  #smallSize(): number {
    return Math.floor(this.config.smallBytes * this.random());
  }
}
