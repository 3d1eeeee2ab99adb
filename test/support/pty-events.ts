/**
 * Reading a terminal's share of a `/ws` socket's events: `pty-output {session_id, data, offset, length}` and
 * `pty-exit {session_id, code}` (docs/noide-protocol.md#terminals).
 */
import { waitFor } from './processes.ts';
import type { RpcClient } from './rpc-client.ts';

export interface PtyOutput {
  session_id: string;
  data: string;
  offset: number;
  /** The bytes `data` stands for (more than its UTF-8 length never; less for lossy bytes decoded to U+FFFD). */
  length: number;
}

export interface PtyExit {
  session_id: string;
  code: number | null;
}

export function ptyOutputs(client: RpcClient, sessionId: string, since = 0): PtyOutput[] {
  return client.events
    .slice(since)
    .filter((event) => event.event === 'pty-output' && (event.payload as PtyOutput).session_id === sessionId)
    .map((event) => event.payload as PtyOutput);
}

export function ptyExits(client: RpcClient, sessionId: string): PtyExit[] {
  return client.events
    .filter((event) => event.event === 'pty-exit' && (event.payload as PtyExit).session_id === sessionId)
    .map((event) => event.payload as PtyExit);
}

/** The session's output text this client received from event `since` on. */
export function ptyText(client: RpcClient, sessionId: string, since = 0): string {
  return ptyOutputs(client, sessionId, since)
    .map((output) => output.data)
    .join('');
}

/**
 * Waits until the session's output on this client (from event `since`) matches `pattern`; resolves with that
 * text. Appends only the new events on each poll, so a long output is not re-joined every 20 ms.
 */
export function waitForPtyText(
  client: RpcClient,
  sessionId: string,
  pattern: string | RegExp,
  { timeoutMs = 10_000, since = 0 }: { timeoutMs?: number; since?: number } = {},
): Promise<string> {
  let text = '';
  let seen = since;
  const matches = () => (typeof pattern === 'string' ? text.includes(pattern) : pattern.test(text));
  return waitFor(
    () => {
      const fresh = client.events.slice(seen);
      seen += fresh.length;
      for (const event of fresh) {
        if (event.event === 'pty-output' && (event.payload as PtyOutput).session_id === sessionId) text += (event.payload as PtyOutput).data;
      }
      return matches() && text;
    },
    { timeoutMs, what: `${String(pattern)} in ${sessionId}'s output` },
  );
}
