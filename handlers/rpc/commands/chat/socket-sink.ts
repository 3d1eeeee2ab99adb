/**
 * A chat's events on the `/ws` socket that started it (docs/noide-protocol.md#chat_stream): `chat-stream-chunk`
 * per line, then one `chat-stream-done`. Congested while the socket holds more than CHAT_HIGH_WATER_BYTES unsent,
 * so the run pauses its CLI's pipes until the socket drains. Once the socket has closed the chat runs on (a
 * reconnected client may cancel it) and its output is dropped, never held.
 */
import type { ChatSink } from '../../../../core/chat/chat-types.ts';
import type { RpcConnection } from '../../command.ts';

/** Unsent bytes past which a chat's CLI is paused: a few lines' worth of slack, not its whole output. */
export const CHAT_HIGH_WATER_BYTES = 4 * 1024 * 1024;

export function socketSink(connection: RpcConnection, rid: string): ChatSink {
  return {
    chunk(stream, text) {
      connection.emit('chat-stream-chunk', { id: rid, stream, text });
    },
    done(error) {
      connection.emit('chat-stream-done', error === undefined ? { id: rid } : { id: rid, error });
    },
    get congested() {
      return !connection.signal.aborted && connection.backlog > CHAT_HIGH_WATER_BYTES;
    },
    onDrain(listener) {
      const off = connection.onDrain(listener);
      // A socket that closes never drains: the run must not stay paused for it.
      const onAbort = () => listener();
      connection.signal.addEventListener('abort', onAbort, { once: true });
      return () => {
        off();
        connection.signal.removeEventListener('abort', onAbort);
      };
    },
  };
}
