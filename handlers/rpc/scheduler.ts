/**
 * When a `/ws` request's work may start. Without it, every frame starts its command at once and every reply
 * is queued on the socket however much is already waiting there: a client that sends small requests for big
 * answers (`read_file_base64` of a large file, twenty times) and stops reading makes the daemon hold all the
 * answers in memory at once.
 *
 * So, per connection, heavy commands (large replies or large work: see command-table.ts) are scheduled:
 * - at most `maxHeavyRunning` run at once; the rest wait, first come first served;
 * - none starts while the socket's unsent bytes are above `highWaterBytes` (the client is not reading what it
 *   asked for); they start again when the socket drains;
 * - past `maxWaiting` waiting, or `maxWaitingBytes` of waiting request frames (an `upload_file` frame carries
 *   its whole file), a new heavy request is refused at once with a small error reply;
 * so what a client can make the daemon hold is bounded by these numbers, not by how many frames it sends.
 * Light commands (quick, small replies) never wait here: a slow heavy command never holds up a fast one.
 *
 * Memory held for one connection is then about highWaterBytes + maxHeavyRunning × the largest reply
 * (rpcMaxFileBytes as base64, commandOutputCap) + maxWaitingBytes.
 */
import { logUnexpectedError } from '../../runtime/errors/unexpected-error.ts';

export interface RpcSchedule {
  /** Heavy commands running at once on one connection. */
  maxHeavyRunning: number;
  /** No heavy command starts while the socket holds more unsent bytes than this. */
  highWaterBytes: number;
  /** Heavy requests waiting to start; one more is refused. */
  maxWaiting: number;
  /** The waiting requests' frames, in total (their text's length); one that would pass it is refused. */
  maxWaitingBytes: number;
}

export const defaultRpcSchedule: RpcSchedule = {
  maxHeavyRunning: 4,
  highWaterBytes: 16 * 1024 * 1024,
  maxWaiting: 256,
  maxWaitingBytes: 128 * 1024 * 1024,
};

export type Refusal = 'count' | 'bytes';

/** The reply text for a heavy request the scheduler refused. */
export function tooManyRequestsText(schedule: RpcSchedule, refusal: Refusal): string {
  const what =
    refusal === 'count'
      ? `${schedule.maxWaiting} waiting behind ${schedule.maxHeavyRunning} running`
      : `more than ${mib(schedule.maxWaitingBytes)} of requests waiting`;
  return `too many requests in flight (${what}); read the replies before sending more`;
}

function mib(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / 1024 / 1024} MiB` : `${bytes} bytes`;
}

/** A heavy command's whole life: run, then hand its reply to the socket. Its slot is held until it settles. */
export type HeavyJob = () => Promise<void>;

export class HeavyScheduler {
  readonly #waiting: { job: HeavyJob; bytes: number }[] = [];
  #waitingBytes = 0;
  #running = 0;
  #closed = false;

  /** `backlog`: the socket's unsent bytes now (ServerSocket.bufferedAmount). */
  constructor(
    private readonly schedule: RpcSchedule,
    private readonly backlog: () => number,
  ) {}

  /**
   * Starts `job` now or queues it (`bytes`: the size of the request it holds); a refusal (nothing queued)
   * when the waiting room is full. After close, jobs are dropped silently: nobody is left to answer.
   */
  submit(job: HeavyJob, bytes: number): Refusal | undefined {
    if (this.#closed) return undefined;
    // The backlog may have fallen under the mark without a drain (that fires only near empty): look again first.
    this.#pump();
    if (this.#waiting.length === 0 && this.#mayStart()) {
      this.#start(job);
      return undefined;
    }
    if (this.#waiting.length >= this.schedule.maxWaiting) return 'count';
    // One request may always wait (else one larger than the bound could never run); more must fit.
    if (this.#waiting.length > 0 && this.#waitingBytes + bytes > this.schedule.maxWaitingBytes) return 'bytes';
    this.#waiting.push({ job, bytes });
    this.#waitingBytes += bytes;
    return undefined;
  }

  /** The socket drained: start what the high-water mark held back. */
  drained(): void {
    this.#pump();
  }

  /** The socket closed: what waits is dropped, never started (running commands see the connection's signal). */
  close(): void {
    this.#closed = true;
    this.#waiting.length = 0;
    this.#waitingBytes = 0;
  }

  get running(): number {
    return this.#running;
  }

  get waiting(): number {
    return this.#waiting.length;
  }

  #mayStart(): boolean {
    return this.#running < this.schedule.maxHeavyRunning && this.backlog() <= this.schedule.highWaterBytes;
  }

  #pump(): void {
    while (!this.#closed && this.#waiting.length > 0 && this.#mayStart()) {
      const next = this.#waiting.shift()!;
      this.#waitingBytes -= next.bytes;
      this.#start(next.job);
    }
  }

  #start(job: HeavyJob): void {
    this.#running++;
    const settled = () => {
      this.#running--;
      this.#pump();
    };
    // A job renders its own failures as replies; a throw here is a bug, and must not leak the slot.
    let done: Promise<void>;
    try {
      done = job();
    } catch (error) {
      done = Promise.reject(error);
    }
    done.then(settled, (error: unknown) => {
      logUnexpectedError('a scheduled /ws command', error);
      settled();
    });
  }
}
