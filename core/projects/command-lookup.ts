/**
 * "Is this manager on PATH?" — setup's `needs-setup` versus `unsupported` (docs/intentic-projects.md#setup). Only a runtime
 * with processes can answer (Node: adapters/process/node-command-lookup.ts); without one every manager counts as
 * absent, so a project with nothing installed is `unsupported` there.
 */
export interface CommandLookup {
  /** Whether `name` is an executable file in one of the daemon's PATH folders. */
  hasCommand(name: string): Promise<boolean>;
}
