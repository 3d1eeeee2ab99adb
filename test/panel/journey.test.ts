import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../../runtime/worker-build.ts';
import { newPanelPage, type PanelPage } from '../support/panel-browser.ts';
import { waitFor } from '../support/processes.ts';
import { tempWorkspace, type TempWorkspace } from '../support/workspace.ts';

/**
 * A newcomer's first minutes, end to end: the real CLI (from source) prints the panel's URL, and that URL
 * in Chromium gives the whole panel over a git repository — tree with badges, quick open, search to a line, an edit
 * saved to disk, a terminal, a file made on disk showing up, a reload that keeps it all. Its last screenshot is the
 * README's picture.
 */

const APP_TS = `export function greet(name: string): string {
  return \`hello, \${name}\`;
}

export const marker = 'journey-marker-4711';
`;

let workspace: TempWorkspace;
let cli: ChildProcess;
let stdout = '';
let panel: PanelPage;

function git(...args: string[]): void {
  execFileSync('git', ['-c', 'user.name=Journey', '-c', 'user.email=journey@example.com', ...args], { cwd: workspace.root, stdio: 'ignore' });
}

beforeAll(async () => {
  workspace = await tempWorkspace({
    'README.md': '# demo\n\nA small project.\n',
    'package.json': '{ "name": "demo", "version": "1.0.0" }\n',
    'src/app.ts': APP_TS,
    'src/util.ts': 'export const one = 1;\n',
  });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'first');
  await writeFile(join(workspace.root, 'src/util.ts'), 'export const one = 1;\nexport const two = 2;\n'); // M
  await writeFile(join(workspace.root, 'NOTES.md'), '- try the panel\n'); // untracked

  cli = spawn(process.execPath, ['--import', 'tsx', 'runtime/node/cli.ts', '--cwd', workspace.root, '--port', '0', '--no-index'], {
    cwd: projectRoot,
    env: { ...process.env, WORKSPACE_TOKEN: undefined, SHELL: '/bin/bash' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  cli.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  panel = await newPanelPage('journey', { width: 1440, height: 860 });
});

afterAll(async () => {
  await panel?.close();
  if (cli && cli.exitCode === null) {
    const exited = new Promise((resolve) => cli.once('exit', resolve));
    cli.kill('SIGTERM');
    await exited;
  }
  await workspace?.cleanup();
});

describe('the printed URL, end to end', () => {
  it('opens the panel over a git repo; quick open, search, edit and save, a terminal, live tree, reload', async () => {
    const printed = await waitFor(() => /^(http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{43})$/m.exec(stdout)?.[1], { timeoutMs: 20_000, what: 'the panel URL on stdout' });
    const { page } = panel;
    await page.goto(printed);
    await page.waitForSelector('#panel[data-ready="true"]');
    expect(page.url()).toBe(printed.replace(/\?token=.*$/, ''));

    // The tree, with git's word on each file.
    const item = (path: string) => `[role=treeitem][data-path=${JSON.stringify(path)}]`;
    await page.waitForSelector(item('src'));
    await page.click(`${item('src')} > .tree-row`);
    const badge = (path: string) => page.textContent(`${item(path)} > .tree-row .tree-badge`);
    await waitFor(async () => (await badge('src/util.ts')) === 'M' || undefined, { what: 'the M badge' });
    expect(await badge('NOTES.md')).toBe('U');
    expect(await badge('src')).toBe('•');
    expect(await badge('src/app.ts')).toBe('');

    // Quick open to a file.
    await page.keyboard.press('Control+p');
    await page.fill('[role=combobox]', 'util');
    await page.waitForSelector('[role=option]:has-text("util.ts")');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelector('.ed-body:not([hidden]) .cm-content')?.textContent?.includes('export const two = 2;'));

    // Search to a line: the hit opens the file there.
    await page.keyboard.press('Control+Shift+F');
    await page.fill('#view-search input[name=query]', 'journey-marker-4711');
    await page.waitForSelector('#view-search .search-hit');
    await page.click('#view-search .search-hit');
    await page.waitForFunction(() => document.querySelector('.ed-body:not([hidden]) .cm-activeLine')?.textContent === "export const marker = 'journey-marker-4711';");
    expect(new URL(page.url()).hash).toBe(`#open=${encodeURIComponent('src/app.ts')}:5`);

    // An edit, saved: the bytes on disk.
    await page.keyboard.press('End');
    await page.keyboard.type(' // seen');
    await page.keyboard.press('Control+s');
    await waitFor(async () => (await readFile(join(workspace.root, 'src/app.ts'), 'utf8')).includes("'journey-marker-4711'; // seen") || undefined, { what: 'the saved edit on disk' });
    expect(await readFile(join(workspace.root, 'src/app.ts'), 'utf8')).toBe(APP_TS.replace("'journey-marker-4711';", "'journey-marker-4711'; // seen"));
    await waitFor(async () => (await badge('src/app.ts')) === 'M' || undefined, { what: 'the saved file turning M' });

    // A terminal.
    await page.click('.terminal-add');
    await page.waitForSelector('.terminal-panel[data-terminal="panel-1"][data-state="live"]');
    await page.focus('.terminal-panel[data-terminal="panel-1"] .xterm-helper-textarea');
    await page.keyboard.type('echo journey-$((40+2)) && git status --short');
    await page.keyboard.press('Enter');
    const screen = () => page.$$eval('.xterm-rows > div', (rows) => rows.map((row) => (row.textContent ?? '').replace(/\u00a0/g, ' ')).join('\n'));
    await page.waitForFunction(() => [...document.querySelectorAll('.xterm-rows > div')].some((row) => row.textContent?.replace(/\u00a0/g, ' ').trim() === 'journey-42'));

    // Made on disk, shown in the tree.
    await writeFile(join(workspace.root, 'src/new-module.ts'), 'export {};\n');
    await page.waitForSelector(item('src/new-module.ts'), { state: 'attached' }); // the Search view is the one shown
    await page.click('#tab-files');
    await page.waitForSelector(item('src/new-module.ts'));
    await panel.screenshot('whole-panel');

    // A reload keeps the file open at its line and replays the terminal once.
    await page.reload();
    await page.waitForSelector('#panel[data-ready="true"]');
    await page.waitForFunction(() => document.querySelector('.ed-body:not([hidden]) .cm-activeLine')?.textContent?.startsWith("export const marker = 'journey-marker-4711';"));
    await page.waitForFunction(() => [...document.querySelectorAll('.xterm-rows > div')].some((row) => row.textContent?.replace(/\u00a0/g, ' ').trim() === 'journey-42'));
    expect((await screen()).split('\n').filter((row) => row.trim() === 'journey-42')).toHaveLength(1);
    await panel.screenshot('after-reload');

    expect(panel.errors).toEqual([]);
    expect(panel.external).toEqual([]);
  }, 60_000);
});
