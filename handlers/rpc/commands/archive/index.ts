import type { RpcCommand } from '../../command.ts';
import { extractZipCommand } from './extract-zip.ts';

/** The protocol's archive commands (docs/noide-protocol.md#extract_zip: listed with the file commands, kept apart as their own engine). */
export const archiveCommands = {
  extract_zip: extractZipCommand,
} satisfies Record<string, RpcCommand>;
