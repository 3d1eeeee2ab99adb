/**
 * `GET /ws/protocol.json` (docs/noide-protocol.md#the-protocol-document): one entry per command of the table and no
 * other, one schema per event, served without a token, every schema valid JSON Schema 2020-12 (ajv) — and real
 * replies and events, over a real server and socket, validate against the document's schema for their command or
 * event, while a reply with an extra key or a wrong type does not.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIGHT_COMMANDS, rpcCommands } from '../../../handlers/rpc/command-table.ts';
import type { RpcEvents } from '../../../handlers/rpc/command-types.ts';
import { buildProtocolDocument, JSON_SCHEMA_DIALECT, protocolDocument } from '../../../handlers/rpc/protocol/protocol-document.ts';
import { rpcResults } from '../../../handlers/rpc/protocol/result-schemas.ts';
import { API_VERSION } from '../../../runtime/openapi/api-version.ts';
import { buildOpenApiDocument } from '../../../runtime/openapi/openapi-document.ts';
import type { NodeServer } from '../../../runtime/node/server.ts';
import { projectRoot } from '../../../runtime/worker-build.ts';
import { GIT_IDENTITY_ENV, startGitTestServer } from '../../support/git-test-server.ts';
import { RpcClient, type EventFrame, type Reply } from '../../support/rpc-client.ts';
import { tempWorkspace, type TempWorkspace } from '../../support/workspace.ts';
import { base64, buildZip, file, folder } from '../../support/zip-writer.ts';

const DOCUMENT_ID = 'https://workspace-api.invalid/ws/protocol.json';
const EVENTS: (keyof RpcEvents)[] = ['pty-output', 'pty-exit', 'chat-stream-chunk', 'chat-stream-done'];

function documentAjv(): Ajv2020 {
  // `format: base64` is an annotation here: the `pattern` zod writes beside it is what checks the text.
  const ajv = new Ajv2020({ strict: false, allErrors: true, formats: { base64: true } });
  ajv.addSchema(buildProtocolDocument(), DOCUMENT_ID);
  return ajv;
}

/** The validator of the schema at `path` (keys from the document's root). */
function validatorAt(ajv: Ajv2020, ...path: string[]): ValidateFunction {
  const pointer = path.map((part) => part.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');
  const validate = ajv.getSchema(`${DOCUMENT_ID}#/${pointer}`);
  if (!validate) throw new Error(`no schema at ${path.join('/')}`);
  return validate;
}

/** ajv's errors for `value`, [] when it validates (so a failure prints what did not fit). */
function errorsOf(validate: ValidateFunction, value: unknown): unknown[] {
  return validate(value) ? [] : (validate.errors ?? ['invalid']);
}

describe('the /ws protocol document', () => {
  it('has one entry per command of the table, and none for a command that does not exist', () => {
    const document = buildProtocolDocument();
    const names = [...rpcCommands.keys()].sort();
    expect(Object.keys(document.commands).sort()).toEqual(names);
    expect(Object.keys(rpcResults).sort()).toEqual(names);
    for (const [name, command] of Object.entries(document.commands)) {
      expect(command.light, name).toBe(LIGHT_COMMANDS.has(name));
      expect(command.args.type, name).toBe('object');
      expect(command.result, name).toBeTypeOf('object');
    }
  });

  it('has a schema for each event and each frame', () => {
    const document = buildProtocolDocument();
    expect(Object.keys(document.events).sort()).toEqual([...EVENTS].sort());
    expect(Object.keys(document.frames).sort()).toEqual(['event', 'ping', 'pong', 'replyError', 'replyOk', 'request']);
  });

  it("carries the package's version and JSON Schema 2020-12; built once", () => {
    const pkg = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { version: string };
    const document = protocolDocument();
    expect(document.version).toBe(pkg.version);
    expect(document.version).toBe(API_VERSION);
    expect(document.$schema).toBe(JSON_SCHEMA_DIALECT);
    expect(protocolDocument()).toBe(document);
  });

  it('the arguments are the rows’ own shapes, as a client sends them', () => {
    const { commands } = buildProtocolDocument();
    expect(commands.read_file!.args).toEqual({ type: 'object', properties: { path: { type: 'string' } }, required: ['path'] });
    expect(commands.pty_spawn!.args).toMatchObject({
      required: ['sessionId'],
      properties: { cols: { type: 'integer', default: 80, minimum: 1, maximum: 65535 }, rows: { default: 24 } },
    });
    expect(commands.get_cwd!.args).toEqual({ type: 'object', properties: {} });
    expect(commands.write_file!.result).toEqual({ type: 'null' });
    expect(commands.read_directory!.result).toEqual({ type: 'array', items: { $ref: '#/$defs/FileNode' } });
  });

  it('no argument is described as "anything": every list says what its items are', () => {
    const loose: string[] = [];
    const visit = (node: unknown, at: string) => {
      if (typeof node !== 'object' || node === null) return;
      const record = node as Record<string, unknown>;
      if (record.type === 'array' && (record.items === undefined || JSON.stringify(record.items) === '{}')) loose.push(at);
      for (const [key, value] of Object.entries(record)) visit(value, `${at}/${key}`);
    };
    for (const [name, command] of Object.entries(buildProtocolDocument().commands)) visit(command.args, name);
    expect(loose).toEqual([]);
    expect(buildProtocolDocument().commands.chat_stream!.args).toMatchObject({
      properties: { args: { items: { type: 'string' } }, attachments: { items: { required: ['name'] } } },
    });
  });

  it("every command's docs page and heading exist", () => {
    const markdown = readFileSync(join(projectRoot, 'docs', 'noide-protocol.md'), 'utf8');
    const slugs = [...markdown.matchAll(/^#{1,6}\s+(.*?)\s*$/gm)].map(([, heading]) =>
      heading!.toLowerCase().replace(/[^\w\- ]/g, '').replace(/ /g, '-'),
    );
    for (const [name, command] of Object.entries(buildProtocolDocument().commands)) {
      const [, anchor] = /^docs\/noide-protocol\.md#([\w-]+)$/.exec(command.docs) ?? [];
      expect(slugs, `${name}: ${command.docs}`).toContain(anchor);
    }
  });

  it('every schema in it is valid JSON Schema 2020-12 and compiles with ajv', () => {
    const document = buildProtocolDocument();
    const ajv = documentAjv();
    const schemas: [string, unknown][] = [
      ...Object.entries(document.frames).map(([name, schema]) => [`frames/${name}`, schema] as [string, unknown]),
      ...Object.entries(document.events).map(([name, schema]) => [`events/${name}`, schema] as [string, unknown]),
      ...Object.entries(document.$defs).map(([name, schema]) => [`$defs/${name}`, schema] as [string, unknown]),
      ...Object.entries(document.commands).flatMap(([name, command]) => [
        [`commands/${name}/args`, command.args] as [string, unknown],
        [`commands/${name}/result`, command.result] as [string, unknown],
      ]),
    ];
    expect(schemas.length).toBe(6 + 4 + 1 + 2 * rpcCommands.size);
    for (const [at, schema] of schemas) {
      expect(ajv.validateSchema(schema as object), `${at}: ${JSON.stringify(ajv.errors)}`).toBe(true);
      expect(validatorAt(ajv, ...at.split('/')), at).toBeTypeOf('function');
    }
  });

  it('a value the document does not describe fails the check (the result schemas are strict)', () => {
    const ajv = documentAjv();
    const spawn = validatorAt(ajv, 'commands', 'pty_spawn', 'result');
    expect(spawn({ id: 'a', pid: 12 })).toBe(true);
    expect(spawn({ id: 'a', pid: 12, extra: true })).toBe(false);
    expect(spawn({ id: 'a', pid: '12' })).toBe(false);
    expect(validatorAt(ajv, 'commands', 'file_exists', 'result')('yes')).toBe(false);
    expect(validatorAt(ajv, 'commands', 'write_file', 'result')(undefined)).toBe(false);
    const tree = validatorAt(ajv, 'commands', 'read_directory', 'result');
    const node = { name: 'a', path: '/r/a', isDirectory: true, children: [{ name: 'b', path: '/r/a/b', isDirectory: false, size: 1 }] };
    expect(tree([node])).toBe(true);
    // the recursive node, through its $ref: a nested entry with a stray key or a null option fails
    expect(tree([{ ...node, children: [{ name: 'b', path: '/r/a/b', isDirectory: false, stray: 1 }] }])).toBe(false);
    expect(tree([{ ...node, size: null }])).toBe(false);
    const status = validatorAt(ajv, 'commands', 'get_git_status', 'result');
    const clean = { branch: 'main', ahead: 0, behind: 0, modified: [], staged: [], untracked: [], deleted: [], unmerged: [], stagedDetails: {}, worktreeDetails: {}, worktreeStats: {}, stagedStats: {} };
    expect(status(clean)).toBe(true);
    expect(status({ ...clean, ahead: '1' })).toBe(false);
    expect(status({ ...clean, worktreeStats: { 'a.txt': { insertions: 1 } } })).toBe(false);
    expect(validatorAt(ajv, 'events', 'pty-exit')({ session_id: 's', code: null })).toBe(true);
    expect(validatorAt(ajv, 'events', 'pty-exit')({ session_id: 's', code: 'x' })).toBe(false);
    expect(validatorAt(ajv, 'events', 'chat-stream-chunk')({ id: '1', stream: 'stdin', text: '' })).toBe(false);
    expect(validatorAt(ajv, 'frames', 'replyOk')({ id: 1, ok: false, result: null })).toBe(false);
    expect(validatorAt(ajv, 'frames', 'request')({ id: 1, command: 'get_cwd' })).toBe(true);
    expect(validatorAt(ajv, 'frames', 'request')({ id: true, command: 'get_cwd' })).toBe(false);
  });
});

describe('GET /ws/protocol.json', () => {
  let workspace: TempWorkspace;
  let server: NodeServer;

  beforeAll(async () => {
    workspace = await tempWorkspace();
    server = await startGitTestServer(workspace.root);
  });
  afterAll(async () => {
    await server.close();
    await workspace.cleanup();
  });

  it('is served without a token, as JSON, and is the built document', async () => {
    const response = await fetch(new URL('/ws/protocol.json', server.url));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await response.json()).toEqual(buildProtocolDocument());
  });

  it('is in the OpenAPI document as a public route', () => {
    const openapi = buildOpenApiDocument() as { paths: Record<string, Record<string, { security: unknown[] }>> };
    expect(openapi.paths['/ws/protocol.json']!.get!.security).toEqual([]);
  });
});

describe('real /ws replies and events match the protocol document', () => {
  let workspace: TempWorkspace;
  let server: NodeServer;
  let client: RpcClient;
  let ajv: Ajv2020;
  /** The commands whose real replies were checked. */
  const checked = new Set<string>();

  beforeAll(async () => {
    workspace = await tempWorkspace({
      'a.txt': 'hello\nworld\n',
      'src/main.ts': 'export const hello = 1;\n',
      'src/deep/x.bin': new Uint8Array([0, 1, 2, 255]),
      'repo/README.md': 'first\n',
    });
    server = await startGitTestServer(workspace.root);
    client = await RpcClient.connect(server);
    ajv = documentAjv();
  });
  afterAll(async () => {
    await client.close();
    await server.close();
    await workspace.cleanup();
  });

  /** Calls `command`, expects ok, and checks the frame and its result against the document; resolves with the result. */
  async function checkedCall(command: string, args?: Record<string, unknown>): Promise<unknown> {
    const reply: Reply = await client.call(command, args, { timeoutMs: 20_000 });
    expect(reply.ok, `${command}: ${reply.error}`).toBe(true);
    expect(errorsOf(validatorAt(ajv, 'frames', 'replyOk'), reply), command).toEqual([]);
    expect(errorsOf(validatorAt(ajv, 'commands', command, 'result'), reply.result), `${command} → ${JSON.stringify(reply.result)}`).toEqual([]);
    checked.add(command);
    return reply.result;
  }

  function checkEvent(event: EventFrame): void {
    expect(errorsOf(validatorAt(ajv, 'frames', 'event'), event)).toEqual([]);
    expect(errorsOf(validatorAt(ajv, 'events', event.event), event.payload), `${event.event} ${JSON.stringify(event.payload)}`).toEqual([]);
  }

  it('the file commands', async () => {
    expect(await checkedCall('get_cwd')).toBe(workspace.root);
    expect(await checkedCall('file_exists', { path: 'a.txt' })).toBe(true);
    expect(await checkedCall('file_exists', { path: 'nope.txt' })).toBe(false);
    expect(await checkedCall('read_file', { path: 'a.txt' })).toBe('hello\nworld\n');
    expect(await checkedCall('read_file_base64', { path: 'src/deep/x.bin' })).toBe('AAEC/w==');
    expect(await checkedCall('download_file', { path: 'src/deep/x.bin' })).toBe('AAEC/w==');
    expect(await checkedCall('write_file', { path: 'new/b.txt', content: 'bee' })).toBeNull();
    expect(await checkedCall('upload_file', { path: 'new/c.bin', content: 'AAE=' })).toBeNull();
    expect(await checkedCall('create_file', { path: 'new/d.txt' })).toBeNull();
    expect(await checkedCall('create_directory', { path: 'made/here' })).toBeNull();
    expect(await checkedCall('rename_entry', { from: 'new/d.txt', to: 'new/e.txt' })).toBeNull();
    expect(await checkedCall('copy_entry', { from: 'new/e.txt', to: 'new/f.txt' })).toBeNull();
    expect(await checkedCall('delete_entry', { path: 'new/f.txt' })).toBeNull();
    const tree = (await checkedCall('read_directory', { path: '.' })) as { name: string }[];
    expect(tree.map((node) => node.name)).toContain('src');
    expect(await checkedCall('list_files', { path: 'src' })).toEqual(['deep/x.bin', 'main.ts']);
    const matches = await checkedCall('search_in_files', { path: '.', query: 'hello' });
    expect(matches).toContainEqual({ file: join(workspace.root, 'a.txt'), lineNumber: 1, lineText: 'hello', matchStart: 0, matchEnd: 5 });
    const zip = base64(buildZip([folder('z'), file('z/in.txt', 'zipped')]));
    expect(await checkedCall('extract_zip', { zipContent: zip, destDir: 'unzipped' })).toEqual(
      expect.arrayContaining([join(workspace.root, 'unzipped/z/in.txt')]),
    );
    expect(await checkedCall('run_command', { command: 'echo out; echo err >&2' })).toBe('out\nerr\n');
  });

  it('the terminal commands, and their pty-output and pty-exit events', async () => {
    const since = client.events.length;
    const spawned = (await checkedCall('pty_spawn', { sessionId: 'proto-doc', shell: '/bin/sh' })) as { id: string };
    expect(spawned.id).toBe('proto-doc');
    expect(await checkedCall('pty_write', { sessionId: 'proto-doc', data: 'echo mark-$((40+2))\n' })).toBeNull();
    await client.waitForEvent((event) => event.event === 'pty-output' && String((event.payload as { data: string }).data).includes('mark-42'), { since });
    expect(await checkedCall('pty_resize', { sessionId: 'proto-doc', cols: 100, rows: 30 })).toBeNull();
    expect(await checkedCall('pty_attach', { sessionId: 'proto-doc', from: 0 })).toMatchObject({ from: 0, truncated: false });
    expect(await checkedCall('pty_kill', { sessionId: 'proto-doc' })).toBeNull();
    await client.waitForEvent((event) => event.event === 'pty-exit', { since });
    const events = client.events.slice(since).filter((event) => event.event.startsWith('pty-'));
    expect(events.some((event) => event.event === 'pty-output')).toBe(true);
    expect(events.filter((event) => event.event === 'pty-exit')).toHaveLength(1);
    for (const event of events) checkEvent(event);
    expect(await checkedCall('pty_detach', { sessionId: 'proto-doc' })).toBeNull();
  });

  it('the git commands', async () => {
    expect(await checkedCall('git_init', { path: 'repo' })).toMatch(/^Initialized empty Git repository in /);
    expect(await checkedCall('git_log', { path: 'repo' })).toEqual([]);
    expect(await checkedCall('git_add', { path: 'repo', file: 'README.md' })).toBe('');
    await checkedCall('git_commit', { path: 'repo', message: 'first' });
    execFileSync('git', ['branch', 'side'], { cwd: join(workspace.root, 'repo'), env: { ...process.env, ...GIT_IDENTITY_ENV } });
    await checkedCall('write_file', { path: 'repo/README.md', content: 'first\nsecond\n' });
    await checkedCall('write_file', { path: 'repo/staged.txt', content: 'staged\n' });
    await checkedCall('git_add', { path: 'repo', file: 'staged.txt' });
    await checkedCall('write_file', { path: 'repo/loose.txt', content: 'loose\n' });
    const status = (await checkedCall('get_git_status', { path: 'repo' })) as Record<string, unknown>;
    expect(status).toMatchObject({ modified: ['README.md'], staged: ['staged.txt'], untracked: ['loose.txt'] });
    expect(status.worktreeStats).toEqual({ 'README.md': { insertions: 1, deletions: 0 } });
    const log = (await checkedCall('git_log', { path: 'repo' })) as { message: string }[];
    expect(log.map((commit) => commit.message)).toEqual(['first']);
    expect(await checkedCall('git_branch_list', { path: 'repo' })).toMatchObject({ branches: expect.arrayContaining(['side']), remotes: [] });
    expect(await checkedCall('get_git_diff', { path: 'repo', file: 'README.md' })).toContain('+second');
    expect(await checkedCall('get_git_staged_diff', { path: 'repo', file: 'staged.txt' })).toContain('+staged');
    expect(await checkedCall('get_git_head_file', { path: 'repo', file: 'README.md' })).toBe('first\n');
    expect(await checkedCall('git_show_index', { path: 'repo', file: 'staged.txt' })).toBe('staged\n');
    await checkedCall('git_stash', { path: 'repo' });
    const stashes = (await checkedCall('git_stash_list', { path: 'repo' })) as unknown[];
    expect(stashes).toHaveLength(1);
    await checkedCall('git_stash_pop', { path: 'repo' });
  });

  it('the chat commands, and a chat-stream-done event', async () => {
    expect(await checkedCall('chat_cancel', { id: 'no-such-chat' })).toEqual({ cancelled: false, reason: 'Process not found' });
    expect(await checkedCall('chat_check_install', { command: 'not-an-agent' })).toBe(false);
    await checkedCall('chat_check_install', { command: 'opencode' });
    // A chat whose folder is missing ends at once with a done event: no agent CLI is needed to see one.
    const since = client.events.length;
    expect(await checkedCall('chat_stream', { command: 'opencode', cwd: 'no-such-folder', requestId: 'doc-chat' })).toBeNull();
    const done = await client.waitForEvent((event) => event.event === 'chat-stream-done', { since });
    expect(done.payload).toMatchObject({ id: 'doc-chat', error: expect.stringContaining("Working directory 'no-such-folder' does not exist") });
    checkEvent(done);
  });

  it('covered every family: files, listing, search, archive, shell, terminals, git, chat', () => {
    for (const command of ['read_directory', 'list_files', 'search_in_files', 'extract_zip', 'run_command', 'get_cwd', 'pty_spawn', 'pty_attach', 'pty_kill', 'get_git_status', 'git_log', 'git_branch_list', 'get_git_diff', 'chat_cancel', 'chat_check_install']) {
      expect(checked, command).toContain(command);
    }
  });
});
