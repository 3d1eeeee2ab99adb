/**
 * Who is writing: the identity our temp files and staging folders carry in their names, so a start-up sweep can
 * tell a dead writer's leftovers from a live writer's work in progress
 * (docs/architecture.md#atomic-and-serialised-writes). Process-wide, set once by the Node parts
 * (./node-writer-identity.ts) and read by whatever names a temp entry, the core's staging names included. No
 * `node:*` here: the core reads it and the Workers bundle imports the core; there it stays unset and names carry
 * no identity (a Durable Object's writes are transactions, nothing is ever left half-written).
 */

/** `<pid>-<8 hex>`: the process id, then a tag of the pid namespace it means something in. */
export type WriterIdentity = `${number}-${string}`;

let current: WriterIdentity | undefined;

export function setWriterIdentity(identity: WriterIdentity): void {
  current = identity;
}

export function writerIdentity(): WriterIdentity | undefined {
  return current;
}
