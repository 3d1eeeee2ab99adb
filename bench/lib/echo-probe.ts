/**
 * Keystroke echo latency, the same procedure on every side (our sockets in the bench process, raw node-pty
 * in the anchor child): at an idle `sh` prompt, write one letter and time until its echo arrives; then,
 * untimed, erase it (DEL, which the tty echoes as `\b \b`) so the line never grows, and pause `gapMs` as
 * between two keystrokes. The shell is dash (no line editor): the echo is the kernel tty's, so what differs
 * between the sides is only the path the bytes travel.
 */
export interface EchoTarget {
  write(data: string): void;
  /** Receives every output chunk from now on. */
  listen(listener: (chunk: Uint8Array | string) => void): void;
}

export interface EchoOptions {
  samples: number;
  gapMs: number;
  timeoutMs?: number;
}

const ERASE = '\x7f';
const ERASE_ECHO = '\b \b';

export async function probeEcho(target: EchoTarget, { samples, gapMs, timeoutMs = 5_000 }: EchoOptions): Promise<number[]> {
  let seen = '';
  let waiter: { expect: string; resolve: () => void } | undefined;
  target.listen((chunk) => {
    // latin1: one char per byte, enough to find ASCII echoes without a streaming decoder.
    seen += typeof chunk === 'string' ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('latin1');
    if (waiter && seen.includes(waiter.expect)) {
      const { resolve } = waiter;
      waiter = undefined;
      resolve();
    }
  });
  const echoOf = (data: string, expect: string): Promise<void> => {
    seen = '';
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no echo of ${JSON.stringify(data)} within ${timeoutMs} ms (saw ${JSON.stringify(seen)})`)), timeoutMs);
      waiter = {
        expect,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      target.write(data);
    });
  };
  const latencies: number[] = [];
  for (let i = 0; i < samples; i++) {
    const letter = String.fromCharCode(97 + (i % 26));
    const started = performance.now();
    await echoOf(letter, letter);
    latencies.push(performance.now() - started);
    await echoOf(ERASE, ERASE_ECHO);
    if (gapMs > 0) await new Promise((resolve) => setTimeout(resolve, gapMs));
  }
  return latencies;
}
