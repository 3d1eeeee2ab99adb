/**
 * Shared set-up for the `/ws` agent-chat suites: a real server over a temp workspace whose chat host sees a
 * controlled world — a PATH, HOME and temp folder of the fixture's own, fake agent CLIs (test/support/fake-agent-cli.ts)
 * that record what they were given — and a real socket. Plus the readers of a chat's events.
 */
import { mkdir, mkdtemp, realpath, rm } from 'node:fs/promises';
import { readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { NodeChatHost } from '../../../adapters/process/node-chat-host.ts';
import type { NodeServer, NodeServerOptions } from '../../../runtime/node/server.ts';
import { AgentRecords, RECORDS_ENV, writeFakeAgent, type AgentName, type FakeAgent, type FakeAgentConfig } from '../../support/fake-agent-cli.ts';
import { processTable, waitFor } from '../../support/processes.ts';
import { RpcClient, startTestServer } from '../../support/rpc-client.ts';

export const MiB = 1024 * 1024;

/** What the daemon makes of its own environment for a chat run and an agent server (docs/noide-protocol.md#chat_stream). */
export const PLAIN_OUTPUT_ENV = {
  NO_COLOR: '1',
  CLICOLOR: '0',
  TERM: 'dumb',
  CI: '1',
  LANG: 'C.UTF-8',
  LC_ALL: 'C.UTF-8',
  PYTHONIOENCODING: 'utf-8',
  GIT_PAGER: 'cat',
  PAGER: 'cat',
};

/** The fixture's folders: none of them the machine's. */
export interface ChatFolders {
  /** The workspace root (a real path). */
  root: string;
  /** HOME of the daemon and its children: the agents' own install folders go under it. */
  home: string;
  /** The one folder of ours on the daemon's PATH. */
  bin: string;
  /** The chat host's temp folder: attachment folders land here, so a test sees every one left behind. */
  tmp: string;
  records: AgentRecords;
  /** Everything above is inside it. */
  base: string;
}

export async function chatFolders(): Promise<ChatFolders> {
  const base = await realpath(await mkdtemp(join(tmpdir(), 'wsapi-chat-')));
  const [root, home, bin, tmp] = ['root', 'home', 'bin', 'tmp'].map((name) => join(base, name)) as [string, string, string, string];
  await Promise.all([root, home, bin, tmp].map((folder) => mkdir(folder)));
  return { base, root, home, bin, tmp, records: await AgentRecords.create(join(base, 'records')) };
}

export interface ChatFixtureOptions {
  /** Folders made beforehand (to lay out install folders before the server starts); fresh ones by default. */
  folders?: ChatFolders;
  /** Fakes installed in `bin` (on PATH): both agents when absent, else only the ones named here. */
  agents?: Partial<Record<AgentName, FakeAgentConfig>>;
  limits?: NodeServerOptions['limits'];
}

export interface ChatFixture extends ChatFolders {
  /** The environment the daemon's children inherit (before chat's own variables). */
  daemonEnv: Record<string, string>;
  opencode: FakeAgent | undefined;
  kilo: FakeAgent | undefined;
  server: NodeServer;
  client: RpcClient;
  /** Another socket to the same server (closed with the fixture). */
  connect(): Promise<RpcClient>;
  /** Entries left in the temp folder (attachment folders not removed). */
  tempLeft(): string[];
  /** Waits until the temp folder is empty (a run's files go when it ends, which need not be before its done is sent). */
  tempCleared(): Promise<void>;
  /** Closes the server (a daemon shutting down); `close` then only cleans up. */
  closeServer(): Promise<void>;
  /** Closes the sockets and the server, and removes the folders. */
  close(): Promise<void>;
}

export async function startChatFixture(options: ChatFixtureOptions = {}): Promise<ChatFixture> {
  const folders = options.folders ?? (await chatFolders());
  const installed: Partial<Record<AgentName, FakeAgent>> = {};
  for (const name of ['opencode', 'kilo'] as const) {
    const config = options.agents?.[name] ?? (options.agents === undefined ? {} : false);
    if (config !== false) installed[name] = await writeFakeAgent(folders.bin, name, config);
  }
  const daemonEnv: Record<string, string> = {
    ...definedOnly(process.env),
    // Only our bin and the system's: the test runner's PATH leads with node_modules/.bin, which holds the real
    // opencode (a dev dependency).
    PATH: `${folders.bin}:/usr/bin:/bin`,
    HOME: folders.home,
    [RECORDS_ENV]: folders.records.dir,
    // What a chat's environment must take away or replace.
    FORCE_COLOR: '3',
    CLICOLOR_FORCE: '1',
    TERM: 'xterm-256color',
    LANG: 'en_US.UTF-8',
    KILO_CONFIG_CONTENT: '{"mode":"debug"}',
  };
  const server = await startTestServer(folders.root, {
    chatHost: new NodeChatHost({ env: daemonEnv, home: folders.home, tempDir: folders.tmp }),
    limits: options.limits ?? {},
  });
  const clients: RpcClient[] = [];
  const connect = async () => {
    const client = await RpcClient.connect(server);
    clients.push(client);
    return client;
  };
  const client = await connect();
  let serverClosed: Promise<void> | undefined;
  const closeServer = () => (serverClosed ??= server.close());
  return {
    ...folders,
    daemonEnv,
    opencode: installed.opencode,
    kilo: installed.kilo,
    server,
    client,
    connect,
    tempLeft: () => readdirSync(folders.tmp),
    tempCleared: async () => {
      await waitFor(() => readdirSync(folders.tmp).length === 0, { timeoutMs: 3000, what: `the temp folder to be empty (${readdirSync(folders.tmp).join(', ')})` });
    },
    closeServer,
    async close() {
      await Promise.all(clients.map((open) => open.close()));
      await closeServer();
      await rm(folders.base, { recursive: true, force: true });
    },
  };
}

function definedOnly(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

let chats = 0;

/** A fresh request id, and the prompt that plays `scenario` in the fake and names the run's record. */
export function nextChat(scenario: string): { rid: string; prompt: string } {
  const rid = `chat-${++chats}`;
  return { rid, prompt: `${scenario} ${rid}` };
}

/** `chat_stream` (opencode unless `command` says otherwise), expecting its reply: `null`, at once. */
export async function chatStream(client: RpcClient, args: Record<string, unknown>): Promise<void> {
  const reply = await client.call('chat_stream', { command: 'opencode', ...args });
  expect(reply).toEqual({ id: reply.id, ok: true, result: null });
}

/** Starts a chat playing `scenario` (`run <prompt>`), with more arguments as given; resolves with its ids. */
export async function startChat(
  client: RpcClient,
  scenario: string,
  more: Record<string, unknown> = {},
): Promise<{ rid: string; prompt: string }> {
  const chat = nextChat(scenario);
  await chatStream(client, { args: ['run', chat.prompt], requestId: chat.rid, ...more });
  return chat;
}

export interface ChunkPayload {
  id: string;
  stream: 'stdout' | 'stderr';
  text: string;
}

export interface DonePayload {
  id: string;
  error?: string;
}

/** This chat's chunks on `client`, in arrival order (one stream, or both). */
export function chunks(client: RpcClient, rid: string, stream?: 'stdout' | 'stderr'): string[] {
  return client.events
    .filter((event) => event.event === 'chat-stream-chunk')
    .map((event) => event.payload as ChunkPayload)
    .filter((chunk) => chunk.id === rid && (stream === undefined || chunk.stream === stream))
    .map((chunk) => chunk.text);
}

export function waitForChunk(client: RpcClient, rid: string, text: string, timeoutMs = 10_000): Promise<unknown> {
  return client.waitForEvent(
    (event) => event.event === 'chat-stream-chunk' && (event.payload as ChunkPayload).id === rid && (event.payload as ChunkPayload).text === text,
    { timeoutMs },
  );
}

export async function waitForDone(client: RpcClient, rid: string, timeoutMs = 10_000): Promise<DonePayload> {
  const event = await client.waitForEvent(
    (event) => event.event === 'chat-stream-done' && (event.payload as DonePayload).id === rid,
    { timeoutMs },
  );
  return event.payload as DonePayload;
}

export interface ChatOutcome {
  done: DonePayload;
  stdout: string[];
  stderr: string[];
}

/**
 * Waits for the chat's done, then for one more round trip on the socket (frames on one socket keep their order),
 * and checks the end of a chat as the protocol has it: exactly one done, and none of the chat's chunks after it.
 */
export async function finished(client: RpcClient, rid: string, timeoutMs = 10_000): Promise<ChatOutcome> {
  const done = await waitForDone(client, rid, timeoutMs);
  await client.ok('get_cwd');
  const ours = client.events.filter((event) => (event.payload as { id?: unknown } | null)?.id === rid);
  const dones = ours.filter((event) => event.event === 'chat-stream-done');
  expect(dones, `the done events of ${rid}`).toHaveLength(1);
  expect(ours.at(-1), `the last event of ${rid}`).toBe(dones[0]);
  return { done, stdout: chunks(client, rid, 'stdout'), stderr: chunks(client, rid, 'stderr') };
}

/** Processes (not yet reaped zombies excluded) in process group `pgid`. */
export function groupMembers(pgid: number): string[] {
  return processTable()
    .filter((entry) => entry.pgrp === pgid && entry.state !== 'Z' && entry.state !== 'X')
    .map((entry) => entry.label);
}

/** Live processes with `arg` as one of their arguments (found by /proc/PID/cmdline, whoever started them). */
export function processesWithArg(arg: string): number[] {
  return processTable()
    .filter((entry) => entry.state !== 'Z' && entry.state !== 'X')
    .filter((entry) => {
      try {
        return readFileSync(`/proc/${entry.pid}/cmdline`, 'utf8').split('\0').includes(arg);
      } catch {
        return false;
      }
    })
    .map((entry) => entry.pid);
}

/** `x×1048576` for a run of one repeated character, else the text itself: big chunks compared by their shape. */
export function shape(text: string): string {
  return text.length > 0 && text === text[0]!.repeat(text.length) && text.length > 16 ? `${text[0]}×${text.length}` : text;
}
