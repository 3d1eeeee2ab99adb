import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page, WebSocketRoute } from 'playwright-core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newPanelPage, openPanel, startPanelDaemon, type PanelDaemon, type PanelPage } from '../support/panel-browser.ts';

/**
 * The panel's terminals in a real browser over a real daemon with real ptys (client/panel/terminals,
 * docs/panel.md#terminals): what is typed runs, a reload replays each terminal's history once, a dropped socket
 * reattaches from its offset, tabs are independent, closing ends the terminal, and the pty follows the pane's size.
 * The screen is read from xterm's rendered rows.
 */

let daemon: PanelDaemon;
let panel: PanelPage | undefined;

beforeEach(async () => {
  daemon = await startPanelDaemon({ 'README.md': '# hello\n' });
});
afterEach(async () => {
  await panel?.close();
  panel = undefined;
  await daemon?.close();
});

const panelOf = (name: string) => `.terminal-panel[data-terminal="${name}"]`;
const tabOf = (name: string) => `.terminal-tab[data-terminal="${name}"]`;

/** The terminal's rendered rows (what is on screen), non-breaking spaces as spaces, trailing blanks trimmed. */
async function screenRows(page: Page, name: string): Promise<string[]> {
  return page.$$eval(`${panelOf(name)} .xterm-rows > div`, (rows) => rows.map((row) => (row.textContent ?? '').replace(/\u00a0/g, ' ').trimEnd()));
}

/** Waits until `text` is on the terminal's screen `times` times (at least once by default). */
async function waitForScreen(page: Page, name: string, text: string, times = 1): Promise<void> {
  await page.waitForFunction(
    ({ selector, text, times }) => {
      const screen = [...document.querySelectorAll(`${selector} .xterm-rows > div`)].map((row) => row.textContent ?? '').join('\n');
      return screen.replace(/\u00a0/g, ' ').split(text).length - 1 >= times;
    },
    { selector: panelOf(name), text, times },
  );
}

function count(rows: string[], text: string): number {
  return rows.join('\n').split(text).length - 1;
}

/** Types a line into the terminal (its hidden input has the focus, as after a click). */
async function typeLine(page: Page, name: string, line: string): Promise<void> {
  await page.focus(`${panelOf(name)} .xterm-helper-textarea`);
  await page.keyboard.type(line);
  await page.keyboard.press('Enter');
}

/** "+" and wait for the new tab's terminal to be attached and its shell to have drawn its prompt. */
async function newTerminal(page: Page, name: string): Promise<void> {
  await page.click('.terminal-add');
  await page.waitForSelector(`${panelOf(name)}[data-state="live"]`);
  await page.waitForFunction((selector) => [...document.querySelectorAll(`${selector} .xterm-rows > div`)].some((row) => (row.textContent ?? '').trim() !== ''), panelOf(name));
}

async function listed(): Promise<{ name: string; running: boolean; exitCode: number | null; end: number }[]> {
  const response = await fetch(`${daemon.url}/terminals`, { headers: { authorization: `Bearer ${daemon.token}` } });
  expect(response.status).toBe(200);
  return ((await response.json()) as { terminals: { name: string; running: boolean; exitCode: number | null; end: number }[] }).terminals;
}

describe('terminals', () => {
  it('runs what is typed, and a reload replays the history exactly once', async () => {
    panel = await newPanelPage('terminals-reload', { width: 1280, height: 1000 });
    await openPanel(panel, daemon.signInUrl);
    await panel.page.waitForSelector('.bottom[data-loaded="true"]');
    expect(await panel.page.textContent('.terminal-message')).toBe('No terminals. Press + to start one.');
    await panel.screenshot('empty');

    await newTerminal(panel.page, 'panel-1');
    // A new terminal has the keyboard.
    expect(await panel.page.evaluate(() => document.activeElement?.classList.contains('xterm-helper-textarea'))).toBe(true);
    await typeLine(panel.page, 'panel-1', 'echo hello-$((6*7))');
    await waitForScreen(panel.page, 'panel-1', 'hello-42');
    await typeLine(panel.page, 'panel-1', 'echo mark-$((1+1))');
    await waitForScreen(panel.page, 'panel-1', 'mark-2');
    await panel.screenshot('typed');
    const before = await screenRows(panel.page, 'panel-1');
    expect(count(before, 'hello-42')).toBe(1);
    expect(count(before, 'mark-2')).toBe(1);

    await panel.page.reload();
    await panel.page.waitForSelector('#panel[data-ready="true"]');
    await panel.page.waitForSelector(`${panelOf('panel-1')}[data-state="live"]`);
    await waitForScreen(panel.page, 'panel-1', 'mark-2');
    // The prompt after `mark-2` is the last of the replay: wait for it before counting.
    await panel.page.waitForFunction(
      ([selector, expected]) => [...document.querySelectorAll(`${selector} .xterm-rows > div`)].filter((row) => (row.textContent ?? '').trim() !== '').length >= expected,
      [panelOf('panel-1'), before.filter((row) => row !== '').length] as const,
    );
    await panel.screenshot('reloaded');
    const after = await screenRows(panel.page, 'panel-1');
    expect(count(after, 'hello-42')).toBe(1);
    expect(count(after, 'mark-2')).toBe(1);
    // Nothing scrolled off (the last row is still blank), so a second copy could not hide above the screen.
    expect(after.at(-1)).toBe('');
    expect(after.filter((row) => row !== '')).toEqual(before.filter((row) => row !== ''));
    // Still the same live shell.
    await typeLine(panel.page, 'panel-1', 'echo again-$((2+2))');
    await waitForScreen(panel.page, 'panel-1', 'again-4');
    expect((await listed()).map((info) => [info.name, info.running])).toEqual([['panel-1', true]]);
    expect(panel.errors).toEqual([]);
    expect(panel.external).toEqual([]);
  });

  it('two tabs are independent, and closing one ends its terminal on the daemon', async () => {
    panel = await newPanelPage('terminals-tabs');
    await openPanel(panel, daemon.signInUrl);
    await newTerminal(panel.page, 'panel-1');
    await newTerminal(panel.page, 'panel-2');
    expect(await panel.page.getAttribute(tabOf('panel-2'), 'aria-selected')).toBe('true');
    expect(await panel.page.isHidden(panelOf('panel-1'))).toBe(true);
    await typeLine(panel.page, 'panel-2', 'echo two-$((1+1))');
    await waitForScreen(panel.page, 'panel-2', 'two-2');
    await panel.screenshot('second-tab');

    await panel.page.click(tabOf('panel-1'));
    expect(await panel.page.isVisible(panelOf('panel-1'))).toBe(true);
    await typeLine(panel.page, 'panel-1', 'echo one-$((0+1))');
    await waitForScreen(panel.page, 'panel-1', 'one-1');
    await panel.screenshot('first-tab');
    expect(count(await screenRows(panel.page, 'panel-1'), 'two-2')).toBe(0);
    expect(count(await screenRows(panel.page, 'panel-2'), 'one-1')).toBe(0);
    expect((await listed()).map((info) => info.name)).toEqual(['panel-1', 'panel-2']);

    // A reload reattaches both, in the daemon's order, the first shown; each replays its own history once.
    await panel.page.reload();
    await panel.page.waitForSelector(`${panelOf('panel-1')}[data-state="live"]`);
    await panel.page.waitForSelector(`${panelOf('panel-2')}[data-state="live"]`, { state: 'attached' }); // (hidden)
    expect(await panel.page.$$eval('.terminal-tab', (tabs) => tabs.map((tab) => [tab.getAttribute('data-terminal'), tab.getAttribute('aria-selected')]))).toEqual([
      ['panel-1', 'true'],
      ['panel-2', 'false'],
    ]);
    await waitForScreen(panel.page, 'panel-1', 'one-1');
    // Arrow keys move between the tabs.
    await panel.page.focus(tabOf('panel-1'));
    await panel.page.keyboard.press('ArrowRight');
    expect(await panel.page.getAttribute(tabOf('panel-2'), 'aria-selected')).toBe('true');
    expect(await panel.page.evaluate(() => document.activeElement?.getAttribute('data-terminal'))).toBe('panel-2');
    await waitForScreen(panel.page, 'panel-2', 'two-2');
    await panel.screenshot('reloaded-second-tab');
    expect(count(await screenRows(panel.page, 'panel-2'), 'two-2')).toBe(1);
    expect(count(await screenRows(panel.page, 'panel-2'), 'one-1')).toBe(0);
    expect(count(await screenRows(panel.page, 'panel-1'), 'one-1')).toBe(1);
    await panel.page.keyboard.press('ArrowLeft');
    expect(await panel.page.getAttribute(tabOf('panel-1'), 'aria-selected')).toBe('true');

    // Closing panel-2 (not the shown one) ends it on the daemon; panel-1 stays shown and alive.
    await panel.page.click(`.terminal-close[aria-label="Close terminal panel-2"]`);
    await panel.page.waitForSelector(tabOf('panel-2'), { state: 'detached' });
    expect((await listed()).map((info) => info.name)).toEqual(['panel-1']);
    // The next "+" takes the lowest free name again.
    await newTerminal(panel.page, 'panel-2');
    await panel.page.click(`.terminal-close[aria-label="Close terminal panel-2"]`);
    await panel.page.waitForSelector(tabOf('panel-2'), { state: 'detached' });
    expect(await panel.page.getAttribute(tabOf('panel-1'), 'aria-selected')).toBe('true');
    await typeLine(panel.page, 'panel-1', 'echo still-$((2+1))');
    await waitForScreen(panel.page, 'panel-1', 'still-3');
    await panel.screenshot('closed-second');
    expect((await listed()).map((info) => info.name)).toEqual(['panel-1']);

    await panel.page.click(`.terminal-close[aria-label="Close terminal panel-1"]`);
    await panel.page.waitForSelector('.terminal-message:not([hidden])');
    expect(await listed()).toEqual([]);
    await panel.screenshot('all-closed');
    expect(panel.errors).toEqual([]);
    expect(panel.external).toEqual([]);
  });

  it('a dropped socket reattaches from its offset: output made meanwhile shows once, nothing twice', async () => {
    panel = await newPanelPage('terminals-drop');
    // `shown`: the offset the page has shown up to on this socket — the attach's `from` plus every output byte relayed.
    const connections: { url: string; page: WebSocketRoute; server: WebSocketRoute; shown: number }[] = [];
    let gate: Promise<void> | undefined;
    // Every terminal socket goes through the test, which can cut it and hold the next one back.
    await panel.page.routeWebSocket(/\/terminals\//, async (ws) => {
      const held = gate;
      if (held) await held;
      const server = ws.connectToServer();
      const connection = { url: ws.url(), page: ws, server, shown: 0 };
      connections.push(connection);
      // Relayed by hand (the server's side is no longer forwarded by itself once read), counting what the page got.
      server.onMessage((message) => {
        if (typeof message === 'string') {
          const control = JSON.parse(message) as { type?: string; from?: number };
          if (control.type === 'attached' && typeof control.from === 'number') connection.shown = control.from;
        } else connection.shown += message.byteLength;
        ws.send(message);
      });
    });
    await openPanel(panel, daemon.signInUrl);
    await newTerminal(panel.page, 'panel-1');
    await typeLine(panel.page, 'panel-1', 'echo hello-$((6*7))');
    await waitForScreen(panel.page, 'panel-1', 'hello-42');
    // A command that prints once the test makes a file, whenever that is.
    await typeLine(panel.page, 'panel-1', 'while [ ! -e go ]; do sleep 0.05; done; echo late-$((3+4))');
    const session = daemon.server.terminals!.get('panel-1')!;
    await expect.poll(() => count(session.text().split('\n'), 'sleep 0.05')).toBe(1); // the line reached the shell
    expect(connections).toHaveLength(1);
    expect(new URL(connections[0]!.url).searchParams.has('from')).toBe(false);
    await panel.screenshot('before-drop');

    // Drop the socket and hold the reattach until the program has printed.
    let release!: () => void;
    gate = new Promise((resolve) => (release = resolve));
    const offset = session.info().end;
    await connections[0]!.page.close({ code: 1013, reason: 'test drop' });
    await connections[0]!.server.close();
    await panel.page.waitForSelector(`${panelOf('panel-1')}[data-state="reconnecting"]`);
    await panel.screenshot('dropped');
    await writeFile(join(daemon.workspace.root, 'go'), '');
    await session.waitForOutput('late-7', { from: offset });
    release();

    await panel.page.waitForSelector(`${panelOf('panel-1')}[data-state="live"]`);
    await waitForScreen(panel.page, 'panel-1', 'late-7');
    expect(connections).toHaveLength(2);
    // It asked for exactly the bytes after the ones it had (the drop may come before the last of the echo reached it).
    expect(new URL(connections[1]!.url).searchParams.get('from')).toBe(String(connections[0]!.shown));
    expect(connections[0]!.shown).toBeLessThanOrEqual(offset);
    await panel.screenshot('reattached');
    const rows = await screenRows(panel.page, 'panel-1');
    expect(count(rows, 'hello-42')).toBe(1);
    expect(count(rows, 'late-7')).toBe(1);
    expect(count(rows, 'sleep 0.05')).toBe(1);
    await typeLine(panel.page, 'panel-1', 'echo after-$((4+4))');
    await waitForScreen(panel.page, 'panel-1', 'after-8');
    expect(panel.errors).toEqual([]);
    expect(panel.external).toEqual([]);
  });

  it('keys typed in a terminal are its own: Ctrl-P and Ctrl-Shift-F reach the program, not quick open or search; Delete on a tab closes it', async () => {
    panel = await newPanelPage('terminals-keys');
    const { page } = panel;
    await openPanel(panel, daemon.signInUrl);
    await page.waitForSelector('.bottom[data-loaded="true"]');
    await newTerminal(page, 'panel-1');
    // `cat -v` shows control characters as text: Ctrl-P arrives as ^P. The keys wait for the shell to have run the
    // line (its echo's output is printed once the tty is back in cooked mode): typed sooner, bash's line editor would
    // take ^P as "previous history", or the raw tty would not echo it.
    await typeLine(page, 'panel-1', 'echo cat-$((6*7)); cat -v');
    await waitForScreen(page, 'panel-1', 'cat-42');
    await page.keyboard.press('Control+p');
    await page.keyboard.press('Enter');
    await waitForScreen(page, 'panel-1', '^P', 2); // the tty's echo and cat's line
    expect(await page.evaluate(() => document.querySelector<HTMLDialogElement>('dialog.quick-open')?.open ?? false)).toBe(false);
    await page.keyboard.press('Control+Shift+F');
    expect(await page.getAttribute('#tab-search', 'aria-selected')).toBe('false');
    expect(await page.evaluate(() => document.activeElement?.classList.contains('xterm-helper-textarea'))).toBe(true);
    await page.keyboard.press('Control+c');
    await panel.screenshot('ctrl-p-in-terminal');

    // The close button is no tab stop in the tab list; Delete on the focused tab ends the terminal.
    expect(await page.getAttribute(`${tabOf('panel-1')} + .terminal-close`, 'tabindex')).toBe('-1');
    await page.focus(tabOf('panel-1'));
    await page.keyboard.press('Delete');
    await page.waitForSelector(tabOf('panel-1'), { state: 'detached' });
    expect((await listed()).map((info) => info.name)).toEqual([]);
    expect(panel.errors).toEqual([]);
  });

  it('the pty follows the pane: a smaller window, a smaller terminal', async () => {
    panel = await newPanelPage('terminals-resize', { width: 1280, height: 900 });
    await openPanel(panel, daemon.signInUrl);
    await newTerminal(panel.page, 'panel-1');
    const sizeOf = async () => ({
      rows: Number(await panel!.page.getAttribute(panelOf('panel-1'), 'data-rows')),
      cols: Number(await panel!.page.getAttribute(panelOf('panel-1'), 'data-cols')),
    });
    const large = await sizeOf();
    await typeLine(panel.page, 'panel-1', 'stty size');
    await waitForScreen(panel.page, 'panel-1', `${large.rows} ${large.cols}`);
    await panel.screenshot('large');

    await panel.page.setViewportSize({ width: 900, height: 640 });
    await panel.page.waitForFunction(
      ([selector, rows, cols]) => {
        const element = document.querySelector(selector) as HTMLElement;
        return Number(element.dataset.rows) < rows && Number(element.dataset.cols) < cols;
      },
      [panelOf('panel-1'), large.rows, large.cols] as const,
    );
    const small = await sizeOf();
    expect(small.rows).toBeGreaterThan(3);
    await typeLine(panel.page, 'panel-1', 'stty size');
    await waitForScreen(panel.page, 'panel-1', `${small.rows} ${small.cols}`);
    await panel.screenshot('small');
    expect(panel.errors).toEqual([]);
  });

  it('shows terminals other clients started; an exited one shows its code and can be closed', async () => {
    const build = daemon.server.terminals!.start({ name: 'build', command: 'echo built-$((2*3)); exit 3', cwd: daemon.workspace.root });
    expect((await build.exited).code).toBe(3);
    panel = await newPanelPage('terminals-others');
    await openPanel(panel, daemon.signInUrl);
    await panel.page.waitForSelector(`${panelOf('build')}[data-state="exited"]`);
    await waitForScreen(panel.page, 'build', 'built-6');
    await waitForScreen(panel.page, 'build', '[exited with code 3]');
    expect(await panel.page.textContent(`${tabOf('build')} .terminal-badge`)).toBe('exit 3');
    await panel.screenshot('exited-elsewhere');

    // "+" skips nothing it need not: panel-1 is free. Its shell's own exit shows too.
    await newTerminal(panel.page, 'panel-1');
    await typeLine(panel.page, 'panel-1', 'exit 7');
    await panel.page.waitForSelector(`${panelOf('panel-1')}[data-state="exited"]`);
    expect(await panel.page.getAttribute(panelOf('panel-1'), 'data-exit-code')).toBe('7');
    await panel.screenshot('exited-here');
    expect((await listed()).map((info) => [info.name, info.exitCode])).toEqual([
      ['build', 3],
      ['panel-1', 7],
    ]);

    await panel.page.click(`.terminal-close[aria-label="Close terminal build"]`);
    await panel.page.waitForSelector(tabOf('build'), { state: 'detached' });
    expect((await listed()).map((info) => info.name)).toEqual(['panel-1']);
    expect(panel.errors).toEqual([]);
    expect(panel.external).toEqual([]);
  });

  it('without terminals on the daemon (501) the pane says so and offers no +', async () => {
    panel = await newPanelPage('terminals-unavailable');
    // What a runtime without a pty answers (the Worker): the route exists, the feature does not.
    await panel.page.route(`${daemon.url}/terminals`, (route) =>
      route.fulfill({ status: 501, contentType: 'application/json', body: JSON.stringify({ error: 'terminals are not available on this runtime' }) }),
    );
    await openPanel(panel, daemon.signInUrl);
    await panel.page.waitForSelector('.bottom[data-unavailable="true"]');
    expect(await panel.page.textContent('.terminal-message')).toBe('Terminals are not available on this workspace server: terminals are not available on this runtime');
    expect(await panel.page.$('.terminal-add')).toBeNull();
    await panel.screenshot('unavailable');
    // The browser's own line about the 501; nothing the panel threw.
    expect(panel.errors.filter((line) => !line.includes('501'))).toEqual([]);
  });
});
