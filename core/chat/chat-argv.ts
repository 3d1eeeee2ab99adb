/**
 * A run's argument list (docs/noide-protocol.md#chat_stream): the client's `args` (the prompt last) with
 * `--attach <server URL>` inserted — after `run` when that is the first argument, else first — and each
 * attachment file as `-f <file>` after everything. Nothing else is added.
 */
export function runArgv(args: readonly string[], serverUrl: string, attachmentFiles: readonly string[]): string[] {
  const at = args[0] === 'run' ? 1 : 0;
  const argv = [...args.slice(0, at), '--attach', serverUrl, ...args.slice(at)];
  for (const file of attachmentFiles) argv.push('-f', file);
  return argv;
}
