import { createServer as createHttpServer, type Server } from 'node:http';
import { mkdir, mkdtemp, realpath, rm } from 'node:fs/promises';
import { createServer as createTcpServer, connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { NodeChatHost } from '../../adapters/process/node-chat-host.ts';
import { AgentRecords, attachmentBytes, RECORDS_ENV, writeFakeAgent, type AgentName } from '../support/fake-agent-cli.ts';
import { newPanelPage, openPanel, startPanelDaemon, type PanelDaemon, type PanelPage } from '../support/panel-browser.ts';
import { isRunning, waitFor } from '../support/processes.ts';

/**
 * The Chat view in a real browser against a real daemon whose chat host finds fake agent CLIs
 * (test/support/fake-agent.cjs) on a PATH of our own: which agents it offers, the model lists, a message's lines
 * streaming in, Stop, the end states, an attachment, and a connection that drops mid-chat (through a TCP relay we
 * can cut).
 */

/** A model list service standing in for OpenRouter (answers) and the Kilo gateway (503). */
let models: Server;
let modelsUrl: string;

beforeAll(async () => {
  models = createHttpServer((request, response) => {
    if (request.url === '/api/v1/models') {
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ data: [{ id: 'fake/model-a' }, { id: 'fake/model-b' }] }));
    } else {
      response.statusCode = 503;
      response.end('down');
    }
  });
  await new Promise<void>((resolve) => models.listen(0, '127.0.0.1', resolve));
  modelsUrl = `http://127.0.0.1:${(models.address() as { port: number }).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => models?.close(resolve));
});

interface ChatDaemon {
  daemon: PanelDaemon;
  records: AgentRecords;
  /** The folder on the chat host's PATH (fakes installed later land here too). */
  bin: string;
  /** The panel's URL through the relay (`?token=` included). */
  url: string;
  /** Cuts every connection through the relay (the browser sees its sockets drop); new ones pass again. */
  drop(): void;
  close(): Promise<void>;
}

/** A daemon whose chat host sees only `agents` (fakes on its PATH; HOME empty), reached through a TCP relay. */
async function startChatDaemon(agents: AgentName[], files: Record<string, string> = {}): Promise<ChatDaemon> {
  const base = await realpath(await mkdtemp(join(tmpdir(), 'wsapi-panel-chat-')));
  const [bin, home, tmp] = ['bin', 'home', 'tmp'].map((name) => join(base, name)) as [string, string, string];
  await Promise.all([bin, home, tmp].map((folder) => mkdir(folder)));
  const records = await AgentRecords.create(join(base, 'records'));
  for (const agent of agents) await writeFakeAgent(bin, agent);
  const env = {
    ...Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined)),
    // Not the runner's PATH: it leads with node_modules/.bin, which holds the real opencode.
    PATH: `${bin}:/usr/bin:/bin`,
    HOME: home,
    [RECORDS_ENV]: records.dir,
  };
  const daemon = await startPanelDaemon(files, {
    chatHost: new NodeChatHost({ env, home, tempDir: tmp }),
    chatModelsUrls: { opencode: modelsUrl, kilo: modelsUrl },
  });
  const port = Number(new URL(daemon.url).port);
  const sockets = new Set<Socket>();
  const relay = createTcpServer((client) => {
    const upstream = connect(port, '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {});
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  const relayPort = (relay.address() as { port: number }).port;
  return {
    daemon,
    records,
    bin,
    url: `http://127.0.0.1:${relayPort}/?token=${daemon.token}`,
    drop: () => {
      for (const socket of sockets) socket.destroy();
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => relay.close(resolve));
      await daemon.close();
      await rm(base, { recursive: true, force: true });
    },
  };
}

let panel: PanelPage | undefined;
afterEach(async () => {
  await panel?.close();
  panel = undefined;
});

/** Opens the panel and its Chat view; waits until the view knows which agents are installed. */
async function openChat(at: ChatDaemon, name: string): Promise<PanelPage> {
  panel = await newPanelPage(name);
  await openPanel(panel, at.url);
  await panel.page.click('#tab-chat');
  await panel.page.waitForSelector('.chat-view:not([data-agents="checking"])[data-agents]');
  return panel;
}

const options = (page: PanelPage, select: string) =>
  page.page.$$eval(`.chat-view select[name=${select}] option`, (list) => list.map((option) => (option as HTMLOptionElement).textContent));

/** The lines of the (one) answer, per stream, as the page shows them. */
const lines = (page: PanelPage, stream: 'stdout' | 'stderr') =>
  page.page.$$eval(`.chat-turn .chat-line[data-stream=${stream}]`, (list) => list.map((line) => line.textContent));

const stateText = (page: PanelPage) => page.page.textContent('.chat-turn .chat-end');

/** Types `text` into the message box (Shift+Enter for each line break) and presses Enter. */
async function sendMessage(page: PanelPage, text: string): Promise<void> {
  const box = page.page.locator('.chat-view textarea[name=message]');
  await box.focus();
  const parts = text.split('\n');
  for (const [i, part] of parts.entries()) {
    if (i > 0) await box.press('Shift+Enter');
    await box.pressSequentially(part);
  }
  expect(await box.inputValue()).toBe(text);
  await box.press('Enter');
}

function clean(page: PanelPage): void {
  expect(page.errors).toEqual([]);
  expect(page.external).toEqual([]);
}

describe('chat with opencode installed', () => {
  let at: ChatDaemon;
  beforeAll(async () => {
    at = await startChatDaemon(['opencode'], { 'docs/notes.txt': 'remember: ünïcode\nline 2\n' });
  });
  afterAll(async () => {
    await at?.close();
  });

  it('offers only the installed agent and its models; a message streams the CLI’s lines in, as text, then done', async () => {
    const page = await openChat(at, 'chat-stream');
    expect(await options(page, 'agent')).toEqual(['opencode']);
    await page.page.waitForSelector('.chat-view[data-models="ready"]');
    expect(await options(page, 'model')).toEqual(['Default model', 'fake/model-a', 'fake/model-b']);
    await page.screenshot('ready');

    // The fake plays its `lines` scenario: empty lines, a lone \r, stderr beside stdout. Markup stays text.
    const prompt = 'lines <b>bold</b> <img src=x onerror="document.title=1">';
    await sendMessage(page, prompt);
    await page.page.waitForSelector('.chat-turn[data-state="done"]');
    expect(await lines(page, 'stdout')).toEqual(['one', '', 'two', '', 'carriage\rreturn', 'three']);
    expect(await lines(page, 'stderr')).toEqual(['warn 1', '', 'warn 2']);
    expect(await stateText(page)).toBe('done');
    expect(await page.page.textContent('.chat-turn .chat-prompt')).toBe(prompt);
    expect(await page.page.$$('.chat-log img, .chat-log b')).toEqual([]);
    // Each empty line still takes a line's height (line breaks are kept on screen, not only in the DOM).
    const heights = await page.page.$$eval('.chat-line[data-stream=stdout]', (list) => list.map((line) => line.getBoundingClientRect().height));
    expect(Math.min(...heights)).toBeGreaterThan(10);
    expect(await page.page.inputValue('.chat-view textarea[name=message]')).toBe('');
    await page.screenshot('streamed');

    const run = at.records.run(prompt)!;
    expect(run.argv).toEqual(['run', '--attach', expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/), prompt]);
    clean(page);
  });

  it('Shift+Enter is a line break, Enter sends; a picked model reaches the CLI as -m openrouter/<id>', async () => {
    const page = await openChat(at, 'chat-model');
    await page.page.waitForSelector('.chat-view[data-models="ready"]');
    await page.page.selectOption('.chat-view select[name=model]', 'fake/model-b');
    await sendMessage(page, 'first line\nsecond line');
    await page.page.waitForSelector('.chat-turn[data-state="done"]');
    expect(await lines(page, 'stdout')).toEqual(['hello from opencode']);
    expect(await page.page.textContent('.chat-turn .chat-who')).toBe('You → opencode (fake/model-b)');
    expect(await page.page.textContent('.chat-turn .chat-prompt')).toBe('first line\nsecond line');
    await page.screenshot('model');
    const run = at.records.runs().find((r) => r.argv.at(-1) === 'first line\nsecond line');
    expect(run?.argv.slice(3)).toEqual(['-m', 'openrouter/fake/model-b', 'first line\nsecond line']);
    clean(page);
  });

  it('Stop cancels a long-running chat: the run ends and the state says cancelled', async () => {
    const page = await openChat(at, 'chat-stop');
    await sendMessage(page, 'hang stop-me');
    await page.page.waitForSelector('.chat-line:text-is("ready")');
    expect(await page.page.isVisible('.chat-stop')).toBe(true);
    expect(await page.page.isVisible('.chat-send')).toBe(false);
    expect(await stateText(page)).toBe('running…');
    await page.screenshot('running');
    const run = at.records.run('hang stop-me')!;
    expect(isRunning(run.pid)).toBe(true);

    await page.page.click('.chat-stop');
    await page.page.waitForSelector('.chat-turn[data-state="cancelled"]');
    expect(await stateText(page)).toBe('cancelled (opencode exited with code -1)');
    expect(isRunning(run.pid)).toBe(false);
    expect(await page.page.isVisible('.chat-send')).toBe(true);
    expect(await page.page.isVisible('.chat-stop')).toBe(false);
    await page.screenshot('cancelled');
    clean(page);
  });

  it('a CLI that fails shows the daemon’s message as the end state', async () => {
    const page = await openChat(at, 'chat-error');
    await sendMessage(page, 'exit3 now');
    await page.page.waitForSelector('.chat-turn[data-state="error"]');
    expect(await lines(page, 'stdout')).toEqual(['failing']);
    expect(await stateText(page)).toBe('error: opencode exited with code 3');
    expect(await page.page.getAttribute('.chat-turn .chat-end', 'role')).toBe('alert');
    await page.screenshot('error');
    clean(page);
  });

  it('attaches the open file when asked: the CLI gets its bytes as -f', async () => {
    const page = await openChat(at, 'chat-attach');
    expect(await page.page.isVisible('.chat-attach')).toBe(false);
    // What ctx.openFile leaves in the address.
    await page.page.evaluate(() => {
      location.hash = `#open=${encodeURIComponent('docs/notes.txt')}:2`;
    });
    await page.page.waitForSelector('.chat-attach:visible');
    expect(await page.page.textContent('.chat-attach code')).toBe('docs/notes.txt');
    // The editor opens the file the address names too, and takes the focus once it is shown: let it, before typing.
    await page.page.waitForSelector('.editor-area .cm-content');
    await page.page.check('.chat-attach input');
    await sendMessage(page, 'hello with a file');
    await page.page.waitForSelector('.chat-turn[data-state="done"]');
    expect(await lines(page, 'stdout')).toEqual(['hello from opencode']);
    expect(await page.page.textContent('.chat-turn .chat-who')).toBe('You → opencode, with docs/notes.txt');
    await page.screenshot('attached');
    const run = at.records.runs().find((r) => r.argv.includes('hello with a file'))!;
    expect(run.files).toHaveLength(1);
    expect(run.files[0]!.path.endsWith('/notes.txt')).toBe(true);
    expect(attachmentBytes(run.files[0]!).toString('utf8')).toBe('remember: ünïcode\nline 2\n');
    clean(page);
  });

  it('a connection that drops mid-chat shows the chat as interrupted; once back, the run is stopped', async () => {
    const page = await openChat(at, 'chat-drop');
    await sendMessage(page, 'hang dropped');
    await page.page.waitForSelector('.chat-line:text-is("ready")');
    const run = at.records.run('hang dropped')!;
    await page.screenshot('running');

    at.drop();
    await page.page.waitForSelector('.chat-turn[data-state="interrupted"]');
    expect(await page.page.isVisible('.chat-send')).toBe(true);
    await page.page.waitForSelector('.chat-after');
    expect(await page.page.textContent('.chat-after')).toBe('the run was stopped on the daemon once the connection was back');
    await waitFor(() => !isRunning(run.pid), { what: 'the interrupted run to stop' });
    expect(await stateText(page)).toBe('interrupted: the connection to the daemon dropped; the rest of this answer is lost');
    await page.screenshot('interrupted');

    // The view works on over the new connection.
    await sendMessage(page, 'hello again');
    await page.page.waitForSelector('.chat-turn:nth-child(2)[data-state="done"]');
    expect(await page.page.textContent('.chat-turn:nth-child(2) .chat-line')).toBe('hello from opencode');
    await page.screenshot('after');
    // The browser's own line about the change feed's stream cut mid-chunk by the drop, and nothing else.
    page.errors.splice(0, page.errors.length, ...page.errors.filter((line) => !line.includes('net::ERR_INCOMPLETE_CHUNKED_ENCODING')));
    clean(page);
  });
});

describe('chat with kilo installed and its model list down', () => {
  let at: ChatDaemon;
  beforeAll(async () => {
    at = await startChatDaemon(['kilo']);
  });
  afterAll(async () => {
    await at?.close();
  });

  it('says why the models did not load, inline, and chats with the default model', async () => {
    const page = await openChat(at, 'chat-models-down');
    expect(await options(page, 'agent')).toEqual(['kilo']);
    await page.page.waitForSelector('.chat-view[data-models="failed"]');
    expect(await page.page.textContent('.chat-models-note')).toBe(
      `Could not list kilo's models: ${modelsUrl}/api/gateway/models returned status 503 Service Unavailable. Messages use the CLI's default model.`,
    );
    expect(await options(page, 'model')).toEqual(['Default model']);
    await page.screenshot('models-down');
    await sendMessage(page, 'hello kilo');
    await page.page.waitForSelector('.chat-turn[data-state="done"]');
    expect(await lines(page, 'stdout')).toEqual(['hello from kilo']);
    expect(at.records.runs().find((r) => r.argv.includes('hello kilo'))!.argv.slice(3)).toEqual(['hello kilo']);
    await page.screenshot('done');
    clean(page);
  });
});

describe('chat with no agent installed', () => {
  let at: ChatDaemon;
  beforeAll(async () => {
    at = await startChatDaemon([]);
  });
  afterAll(async () => {
    await at?.close();
  });

  it('says plainly that none is installed, names the agents it can run, offers no message box; Check again finds one installed since', async () => {
    const page = await openChat(at, 'chat-none');
    expect(await page.page.getAttribute('.chat-view', 'data-agents')).toBe('none');
    expect(await page.page.textContent('.chat-setup-note p')).toBe(
      "No agent CLI is installed on the daemon's machine. It can run: opencode, kilo. Install one where the daemon finds it (its PATH), then check again.",
    );
    expect(await page.page.isVisible('.chat-view textarea')).toBe(false);
    expect(await page.page.isVisible('.chat-view select[name=agent]')).toBe(false);
    await page.screenshot('none');

    // Installed afterwards: "Check again" finds it, and the message box appears.
    await writeFakeAgent(at.bin, 'opencode');
    await page.page.click('.chat-recheck');
    await page.page.waitForSelector('.chat-view[data-agents="opencode"]');
    expect(await options(page, 'agent')).toEqual(['opencode']);
    expect(await page.page.isVisible('.chat-view textarea')).toBe(true);
    expect(await page.page.textContent('.chat-setup-note')).toBe('');
    await page.screenshot('found');
    clean(page);
  });
});
