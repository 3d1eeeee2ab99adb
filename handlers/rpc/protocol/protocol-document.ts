/**
 * The `/ws` protocol as one JSON document (docs/noide-protocol.md#the-protocol-document), served at
 * `GET /ws/protocol.json`: JSON Schema 2020-12 for each frame, for every command's arguments (from the row's own
 * zod shape, as a client sends them) and result (./result-schemas.ts, as the server answers), and for each event.
 * Named sub-schemas (the recursive FileNode) live once in the root `$defs`, so any schema in the document resolves
 * against the document itself.
 */
import { z } from 'zod';
import { API_VERSION } from '../../../runtime/openapi/api-version.ts';
import { toSharedSchema, type JsonSchema } from '../../../runtime/openapi/json-schema.ts';
import { rpcCommands } from '../command-table.ts';
import { rpcEventSchemas } from './event-schemas.ts';
import { frameSchemas } from './frame-schemas.ts';
import type { ResultEntry } from './result-entry.ts';
import { rpcResults } from './result-schemas.ts';

export const JSON_SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';

export interface ProtocolCommand {
  /** Runs the moment its frame arrives, never queued behind a heavy command (docs/noide-protocol.md#flow-control). */
  light: boolean;
  args: JsonSchema;
  result: JsonSchema;
  docs: string;
}

export interface ProtocolDocument {
  $schema: string;
  title: string;
  version: string;
  description: string;
  frames: Record<string, JsonSchema>;
  commands: Record<string, ProtocolCommand>;
  events: Record<string, JsonSchema>;
  $defs: Record<string, JsonSchema>;
}

const results: Readonly<Record<string, ResultEntry>> = rpcResults;

let built: ProtocolDocument | undefined;

/** The document, built on first use and kept (it is the same for every app). */
export function protocolDocument(): ProtocolDocument {
  built ??= buildProtocolDocument();
  return built;
}

/** Builds the document; throws if a command has no result entry or an entry names no command. */
export function buildProtocolDocument(): ProtocolDocument {
  const defs: Record<string, JsonSchema> = {};
  const convert = (schema: z.ZodType, io: 'input' | 'output') => toSharedSchema(schema, io, defs, '#/$defs/');
  const commands: Record<string, ProtocolCommand> = {};
  for (const [name, command] of rpcCommands) {
    const entry = results[name];
    if (!entry) throw new Error(`no result schema for the /ws command ${name}`);
    commands[name] = {
      light: command.weight === 'light',
      // The arguments as a client sends them: keys the row does not know are ignored, so the object stays open.
      args: convert(z.object(command.args ?? {}), 'input'),
      result: convert(entry.result, 'output'),
      docs: entry.docs,
    };
  }
  const stray = Object.keys(results).filter((name) => !rpcCommands.has(name));
  if (stray.length > 0) throw new Error(`result schemas for commands that do not exist: ${stray.join(', ')}`);
  return {
    $schema: JSON_SCHEMA_DIALECT,
    title: 'workspace-api /ws protocol',
    version: API_VERSION,
    description:
      'The NoIDE WebSocket JSON protocol on /ws (docs/noide-protocol.md): one JSON object per text frame. Each ' +
      "command's `args` is the request's `args` object, its `result` the `result` of an ok reply; each event's " +
      'schema is the `payload` of its event frame. A failed command answers a replyError frame.',
    frames: Object.fromEntries(Object.entries(frameSchemas).map(([name, schema]) => [name, convert(schema, name === 'request' ? 'input' : 'output')])),
    commands,
    events: Object.fromEntries(Object.entries(rpcEventSchemas).map(([name, schema]) => [name, convert(schema, 'output')])),
    $defs: defs,
  };
}
