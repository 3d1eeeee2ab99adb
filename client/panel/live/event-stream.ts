/**
 * Reads a `text/event-stream` body (Server-Sent Events) into its events' data: `EventSource` cannot send the
 * `Authorization` header, so the change feed fetches the stream itself and parses it here. Only what the feed
 * needs of the format: `data:` lines (several are joined by newlines), comments (`:`) and other fields skipped,
 * an event ending at a blank line; CR, LF and CRLF line ends.
 */
export async function* eventStreamData(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let data: string[] = [];
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = lineEnd(buffer)) >= 0) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(buffer[end] === '\r' && buffer[end + 1] === '\n' ? end + 2 : end + 1);
        if (line === '') {
          if (data.length > 0) yield data.join('\n');
          data = [];
        } else if (line.startsWith('data:')) {
          data.push(line.slice(line[5] === ' ' ? 6 : 5));
        }
      }
    }
  } finally {
    reader.releaseLock();
  }
}

/** Where the first whole line of `text` ends (a lone CR at the very end may still become CRLF: wait for more). */
function lineEnd(text: string): number {
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\n') return i;
    if (c === '\r') return i + 1 < text.length ? i : -1;
  }
  return -1;
}
