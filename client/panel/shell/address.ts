/**
 * The page's address says which file is open: `#open=<encodeURIComponent(path)>[:line[:column]]` (1-based). A link
 * to a file, and what a reload reopens. Written by `ctx.openFile` and the editor, read by the editor and chat.
 */
export interface OpenAddress {
  path: string;
  line?: number;
  column?: number;
}

export function formatOpenAddress({ path, line, column }: OpenAddress): string {
  if (line === undefined || !(line >= 1)) return `#open=${encodeURIComponent(path)}`;
  return `#open=${encodeURIComponent(path)}:${Math.floor(line)}${column !== undefined && column >= 1 ? `:${Math.floor(column)}` : ''}`;
}

/** `#open=…` → what it opens, or undefined for any other hash (or a path that does not decode). */
export function parseOpenAddress(hash: string): OpenAddress | undefined {
  const match = /^#open=([^:]+)(?::(\d+)(?::(\d+))?)?$/.exec(hash);
  if (!match) return undefined;
  let path: string;
  try {
    path = decodeURIComponent(match[1]!);
  } catch {
    return undefined;
  }
  if (path === '') return undefined;
  const line = match[2] === undefined ? 0 : Number(match[2]);
  if (line < 1) return { path };
  const column = match[3] === undefined ? 0 : Number(match[3]);
  return column < 1 ? { path, line } : { path, line, column };
}
