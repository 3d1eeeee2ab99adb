/** Where an entry stream's chunks come from, one read at a time; `stop` ends it early and lets go of what it holds. */
export interface Source {
  read(): Promise<ReadableStreamReadResult<Uint8Array>>;
  stop(reason?: unknown): void;
}
