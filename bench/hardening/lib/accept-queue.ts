/**
 * How many connections wait in a listening socket's accept queue: for a LISTEN socket /proc/net/tcp's rx_queue is
 * the kernel's count of connections made but not yet accepted. A thousand clients connecting at once are all
 * established within milliseconds (the backlog holds them), but a busy Node daemon takes them from the queue a few
 * per event-loop turn (seen under strace: one accept4 per turn once the loop is busy, never run down to EAGAIN), so
 * under load the last ones wait many seconds. The steady state begins only once this is 0.
 */
import { readFile } from 'node:fs/promises';

const LISTEN = '0A';

export async function acceptQueueLength(port: number): Promise<number> {
  const text = await readFile('/proc/net/tcp', 'utf8');
  for (const line of text.split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    const [, local, , state, queues] = fields;
    if (state !== LISTEN || !local || !queues) continue;
    if (Number.parseInt(local.split(':')[1]!, 16) !== port) continue;
    return Number.parseInt(queues.split(':')[1]!, 16);
  }
  return Number.NaN;
}
