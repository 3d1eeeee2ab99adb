import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { newPanelPage, openPanel, startPanelDaemon, type PanelDaemon, type PanelPage } from '../support/panel-browser.ts';

/**
 * The panel's editor (client/panel/editor, docs/panel.md#editor) in a real browser against a real daemon: files open
 * from the address at a line, edits are saved byte for byte, a change made on disk meanwhile is never overwritten
 * unseen, and images, binary files and files over the text cap are shown the way each needs.
 */

const MAIN_TS = "const greeting: string = 'hi';\nexport function twice(n: number) {\n  return n * 2;\n}\n";
const PNG = png(4, 3);
const BINARY = Uint8Array.from([0x7f, 0x45, 0x4c, 0x46, 0, 0, 1, 2, 0xff, 0xfe, 0, 9, 8, 7]);
const LINE_BYTES = 64;
const BIG_LINES = (6 * 1024 * 1024) / LINE_BYTES; // 6 MiB: over the 5 MiB read cap
const bigLine = (index: number) => `line ${String(index).padStart(7, '0')} `.padEnd(LINE_BYTES - 1, 'x') + '\n';

let daemon: PanelDaemon;
let panel: PanelPage | undefined;

beforeAll(async () => {
  daemon = await startPanelDaemon({
    'src/main.ts': MAIN_TS,
    'README.md': '# hello\n\nsecond paragraph\n',
    'notes.txt': 'alpha\nbeta\n',
    'conflict.txt': 'one\ntwo\n',
    'live.txt': 'first\nsecond\nthird\n',
    'pic.png': PNG,
    'blob.bin': BINARY,
    'slow.txt': 'held back\n',
    'other.txt': 'another file\n',
    'compare.txt': 'base\n',
    'again.txt': 'base\n',
    'a11y-one.txt': 'one\n',
    'a11y-two.txt': 'two\n',
    'big.log': Array.from({ length: BIG_LINES }, (_, index) => bigLine(index)).join(''),
  });
});
afterAll(async () => {
  await daemon?.close();
});
afterEach(async () => {
  await panel?.close();
  panel = undefined;
});

const onDisk = (path: string) => readFile(join(daemon.workspace.root, path), 'utf8');
const openAt = (hash: string) => openPanel(panel!, `${daemon.signInUrl}${hash}`);
const tab = (path: string) => `.ed-tab[data-path="${path}"]`;
const visible = '.ed-body:not([hidden])';

/** The text of the active editor, line by line as CodeMirror shows it (small files: every line is drawn). */
async function editorText(): Promise<string> {
  return panel!.page.$$eval(`${visible} .ed-content .cm-line`, (lines) => lines.map((line) => line.textContent).join('\n'));
}

/**
 * Records, in the page, which elements ResizeObservers watch until they are disconnected. Every CodeMirror view
 * watches its `.cm-scroller` until `destroy()`: `leakedEditors()` counts the views still alive outside the document
 * (built for a tab or comparison no longer shown, never destroyed).
 */
async function trackEditors(): Promise<void> {
  await panel!.page.addInitScript(() => {
    const watched = new Map<ResizeObserver, Set<Element>>();
    const observe = ResizeObserver.prototype.observe;
    const unobserve = ResizeObserver.prototype.unobserve;
    const disconnect = ResizeObserver.prototype.disconnect;
    ResizeObserver.prototype.observe = function (this: ResizeObserver, target: Element, options?: ResizeObserverOptions) {
      if (!watched.has(this)) watched.set(this, new Set());
      watched.get(this)!.add(target);
      return observe.call(this, target, options);
    };
    ResizeObserver.prototype.unobserve = function (this: ResizeObserver, target: Element) {
      watched.get(this)?.delete(target);
      return unobserve.call(this, target);
    };
    ResizeObserver.prototype.disconnect = function (this: ResizeObserver) {
      watched.delete(this);
      return disconnect.call(this);
    };
    (window as unknown as { editorViews: () => { live: number; detached: number } }).editorViews = () => {
      const scrollers = [...watched.values()].flatMap((targets) => [...targets]).filter((target) => target.classList.contains('cm-scroller'));
      return { live: scrollers.length, detached: scrollers.filter((target) => !target.isConnected).length };
    };
  });
}

const editorViews = () => panel!.page.evaluate(() => (window as unknown as { editorViews: () => { live: number; detached: number } }).editorViews());

async function activeLine(): Promise<string | null> {
  return panel!.page.textContent(`${visible} .cm-activeLine`);
}

describe('editor', () => {
  it('opens #open=path:3 with the caret on line 3, highlights TypeScript, follows hashchange and reopens on reload', async () => {
    panel = await newPanelPage('editor-open');
    await openAt('#open=src%2Fmain.ts:3');
    await panel.page.waitForFunction(() => document.querySelector('.ed-body:not([hidden]) .cm-activeLine')?.textContent === '  return n * 2;');
    expect(await panel.page.textContent('.ed-path')).toBe('src/main.ts');
    expect(await panel.page.textContent('.ed-pos')).toBe('Ln 3, Col 1');
    expect(await panel.page.textContent(`${visible} .cm-activeLineGutter`)).toBe('3');
    expect(await panel.page.getAttribute(`${tab('src/main.ts')} [role=tab]`, 'aria-selected')).toBe('true');
    expect(await editorText()).toBe(MAIN_TS);
    // The TypeScript grammar arrives in its own chunk; then `return` is a token with a highlight class of its own colour.
    const keyword = await panel.page.waitForFunction(() => {
      const span = [...document.querySelectorAll('.ed-body:not([hidden]) .cm-line span')].find((node) => node.textContent === 'return');
      if (!span || !span.className) return false;
      const line = span.closest('.cm-line')!;
      return { className: span.className, color: getComputedStyle(span).color, lineColor: getComputedStyle(line).color };
    });
    const token = (await keyword.jsonValue()) as { className: string; color: string; lineColor: string };
    expect(token.className).toMatch(/^ͼ/);
    expect(token.color).not.toBe(token.lineColor);
    await panel.screenshot('ts-line-3');

    // Another file from the address (a hashchange), at line 3: a second tab, now the active one.
    await panel.page.evaluate(() => {
      location.hash = '#open=README.md:3';
    });
    await panel.page.waitForFunction(() => document.querySelector('.ed-body:not([hidden]) .cm-activeLine')?.textContent === 'second paragraph');
    expect(await panel.page.$$eval('.ed-tab', (tabs) => tabs.map((node) => (node as HTMLElement).dataset.path))).toEqual(['src/main.ts', 'README.md']);
    expect(await panel.page.textContent('.ed-path')).toBe('README.md');
    await panel.screenshot('readme-tab');

    // The strip's keys: ArrowLeft goes to the first tab, End back to the last.
    await panel.page.focus(`${tab('README.md')} [role=tab]`);
    await panel.page.keyboard.press('ArrowLeft');
    expect(await panel.page.getAttribute(`${tab('src/main.ts')} [role=tab]`, 'aria-selected')).toBe('true');
    expect(await panel.page.evaluate(() => document.activeElement?.closest('.ed-tab')?.getAttribute('data-path'))).toBe('src/main.ts');
    expect(await panel.page.textContent('.ed-path')).toBe('src/main.ts');
    await panel.page.keyboard.press('End');
    expect(await panel.page.getAttribute(`${tab('README.md')} [role=tab]`, 'aria-selected')).toBe('true');

    // Clicking the first tab shows it again and names it in the address; a reload reopens it there.
    await panel.page.click(`${tab('src/main.ts')} [role=tab]`);
    await panel.page.waitForFunction(() => location.hash === '#open=src%2Fmain.ts:3');
    await panel.page.reload();
    await panel.page.waitForSelector('#panel[data-ready="true"]');
    await panel.page.waitForFunction(() => document.querySelector('.ed-body:not([hidden]) .cm-activeLine')?.textContent === '  return n * 2;');
    expect(await panel.page.$$eval('.ed-tab', (tabs) => tabs.map((node) => (node as HTMLElement).dataset.path))).toEqual(['src/main.ts']);

    // Closing the last tab empties the area and the address.
    await panel.page.click(`${tab('src/main.ts')} .ed-close`);
    await panel.page.waitForSelector('.ed-empty:not([hidden])');
    expect(await panel.page.evaluate(() => location.hash)).toBe('');
    await panel.screenshot('closed');
    expect(panel.errors).toEqual([]);
    expect(panel.external).toEqual([]);
  });

  it('an edit is marked unsaved; Ctrl-S and the Save button write exactly the editor text', async () => {
    panel = await newPanelPage('editor-save');
    await openAt('#open=notes.txt:2');
    await panel.page.waitForFunction(() => document.querySelector('.ed-body:not([hidden]) .cm-activeLine')?.textContent === 'beta');
    expect(await panel.page.getAttribute(tab('notes.txt'), 'data-dirty')).toBe('false');
    expect(await panel.page.isDisabled('.ed-save')).toBe(true);
    await panel.page.keyboard.press('End');
    await panel.page.keyboard.type(' gamma');
    await panel.page.waitForSelector(`${tab('notes.txt')}[data-dirty="true"] .ed-dirty`, { state: 'visible' });
    expect(await panel.page.textContent('.ed-state')).toBe('unsaved changes');
    await panel.screenshot('dirty');
    expect(await onDisk('notes.txt')).toBe('alpha\nbeta\n');

    await panel.page.keyboard.press('Control+s');
    await panel.page.waitForSelector(`${tab('notes.txt')}[data-dirty="false"]`);
    expect(await onDisk('notes.txt')).toBe('alpha\nbeta gamma\n');
    expect(await panel.page.textContent('.statusbar')).toBe('Saved notes.txt');
    await panel.screenshot('saved-with-ctrl-s');

    // A new line, saved with the button.
    await panel.page.keyboard.press('Enter');
    await panel.page.keyboard.type('delta ünïcode ✓');
    await panel.page.waitForSelector(`${tab('notes.txt')}[data-dirty="true"]`);
    await panel.page.click('.ed-save');
    await panel.page.waitForSelector(`${tab('notes.txt')}[data-dirty="false"]`);
    expect(await onDisk('notes.txt')).toBe('alpha\nbeta gamma\ndelta ünïcode ✓\n');
    expect(await editorText()).toBe('alpha\nbeta gamma\ndelta ünïcode ✓\n');
    await panel.screenshot('saved-with-button');
    expect(panel.errors).toEqual([]);
    expect(panel.external).toEqual([]);
  });

  it('the live feed: a clean tab takes the disk’s version by itself, on the same line; a tab with edits shows the conflict unasked', async () => {
    panel = await newPanelPage('editor-live');
    const file = join(daemon.workspace.root, 'live.txt');
    await openAt('#open=live.txt:2');
    await panel.page.waitForSelector('#panel[data-change-feed="ready"]');
    await panel.page.waitForFunction(() => document.querySelector('.ed-body:not([hidden]) .cm-activeLine')?.textContent === 'second');

    await writeFile(file, 'first\nsecond, from disk\nthird\nfourth\n');
    await panel.page.waitForFunction(() => document.querySelector('.ed-body:not([hidden]) .cm-activeLine')?.textContent === 'second, from disk');
    expect(await editorText()).toBe('first\nsecond, from disk\nthird\nfourth\n');
    expect(await panel.page.getAttribute(tab('live.txt'), 'data-dirty')).toBe('false');
    await panel.screenshot('reloaded');

    await panel.page.keyboard.type(' (mine)');
    await panel.page.waitForSelector(`${tab('live.txt')}[data-dirty="true"]`);
    await writeFile(file, 'theirs only\n');
    await panel.page.waitForSelector(`${visible} .ed-conflict`);
    expect(await panel.page.getAttribute(tab('live.txt'), 'data-disk')).toBe('changed');
    expect(await onDisk('live.txt')).toBe('theirs only\n');
    await panel.screenshot('conflict-unasked');
    expect(panel.errors).toEqual([]);
    expect(panel.external).toEqual([]);
  });

  it('a change on disk meanwhile is not overwritten: the conflict offers theirs, mine and a comparison', async () => {
    panel = await newPanelPage('editor-conflict');
    const file = join(daemon.workspace.root, 'conflict.txt');
    await openAt('#open=conflict.txt:1');
    await panel.page.waitForFunction(() => document.querySelector('.ed-body:not([hidden]) .cm-activeLine')?.textContent === 'one');
    await panel.page.keyboard.press('End');
    await panel.page.keyboard.type(' mine');
    await panel.page.waitForSelector(`${tab('conflict.txt')}[data-dirty="true"]`);
    // Someone else writes the file (a different length: a new version whatever the clock's tick).
    await writeFile(file, 'one\ntwo\nthree from disk\n');

    await panel.page.click('.ed-save');
    await panel.page.waitForSelector(`${visible} .ed-conflict`);
    expect(await panel.page.textContent(`${visible} .ed-conflict-text`)).toBe(
      'conflict.txt changed on disk since it was opened here, and this tab has unsaved edits. Saving would overwrite that change.',
    );
    expect(await panel.page.getAttribute(tab('conflict.txt'), 'data-disk')).toBe('changed');
    expect(await onDisk('conflict.txt')).toBe('one\ntwo\nthree from disk\n');
    await panel.screenshot('conflict');

    // Compare: theirs on the left, mine on the right, in a merge view.
    await panel.page.click(`${visible} .ed-compare-button`);
    await panel.page.waitForSelector(`${visible} .cm-mergeView`);
    const sides = await panel.page.$$eval(`${visible} .cm-mergeView .cm-editor`, (editors) =>
      editors.map((editor) => [...editor.querySelectorAll('.cm-line')].map((line) => line.textContent).join('\n')),
    );
    expect(sides).toEqual(['one\ntwo\nthree from disk\n', 'one mine\ntwo\n']);
    expect(await panel.page.$$eval(`${visible} .cm-mergeView .cm-changedLine`, (lines) => lines.length)).toBeGreaterThan(0);
    await panel.screenshot('compare');

    // Keep theirs: the disk's version in the editor, nothing written.
    await panel.page.click(`${visible} .ed-theirs`);
    await panel.page.waitForSelector(`${visible} .ed-conflict`, { state: 'detached' });
    await panel.page.waitForSelector(`${tab('conflict.txt')}[data-dirty="false"][data-disk="same"]`);
    expect(await editorText()).toBe('one\ntwo\nthree from disk\n');
    expect(await onDisk('conflict.txt')).toBe('one\ntwo\nthree from disk\n');
    await panel.screenshot('kept-theirs');

    // Again, and this time keep mine: the editor's text replaces the disk's newer one.
    await panel.page.click(`${visible} .ed-content .cm-line >> text=two`);
    await panel.page.keyboard.press('End');
    await panel.page.keyboard.type(' edited');
    await panel.page.waitForSelector(`${tab('conflict.txt')}[data-dirty="true"]`);
    await writeFile(file, 'rewritten elsewhere\n');
    await panel.page.keyboard.press('Control+s');
    await panel.page.waitForSelector(`${visible} .ed-conflict`);
    expect(await onDisk('conflict.txt')).toBe('rewritten elsewhere\n');
    await panel.screenshot('conflict-again');
    await panel.page.click(`${visible} .ed-mine`);
    await panel.page.waitForSelector(`${visible} .ed-conflict`, { state: 'detached' });
    await panel.page.waitForSelector(`${tab('conflict.txt')}[data-dirty="false"][data-disk="same"]`);
    expect(await onDisk('conflict.txt')).toBe('one\ntwo edited\nthree from disk\n');
    expect(await editorText()).toBe('one\ntwo edited\nthree from disk\n');
    await panel.screenshot('kept-mine');

    // The editor has the focus back, and the version the tab now holds is the one it wrote: the next save goes through.
    await panel.page.keyboard.type('!');
    await panel.page.waitForSelector(`${tab('conflict.txt')}[data-dirty="true"]`);
    await panel.page.keyboard.press('Control+s');
    await panel.page.waitForSelector(`${tab('conflict.txt')}[data-dirty="false"]`);
    expect(await onDisk('conflict.txt')).toBe('one\ntwo edited!\nthree from disk\n');
    expect(panel.errors).toEqual([]);
    expect(panel.external).toEqual([]);
  });

  it('the write itself is conditional: a change landing between the check and the write still ends in the conflict', async () => {
    panel = await newPanelPage('editor-race');
    const file = join(daemon.workspace.root, 'race.txt');
    await writeFile(file, 'first\n');
    await openAt('#open=race.txt:1');
    await panel.page.waitForFunction(() => document.querySelector('.ed-body:not([hidden]) .cm-activeLine')?.textContent === 'first');
    await panel.page.keyboard.press('End');
    await panel.page.keyboard.type(' mine');
    await panel.page.waitForSelector(`${tab('race.txt')}[data-dirty="true"]`);
    // The other writer lands just as the PUT leaves the browser (after the editor's own look found nothing new).
    let held = 0;
    await panel.page.route(/\/api\/file\?/, async (route) => {
      if (route.request().method() === 'PUT' && held++ === 0) await writeFile(file, 'theirs, written in between\n');
      await route.continue();
    });
    await panel.page.keyboard.press('Control+s');
    await panel.page.waitForSelector(`${visible} .ed-conflict`);
    expect(held).toBe(1);
    expect(await onDisk('race.txt')).toBe('theirs, written in between\n');
    expect(await panel.page.getAttribute(tab('race.txt'), 'data-dirty')).toBe('true');
    await panel.screenshot('conflict-from-412');
    await panel.page.click(`${visible} .ed-mine`);
    await panel.page.waitForSelector(`${tab('race.txt')}[data-dirty="false"][data-disk="same"]`);
    expect(await onDisk('race.txt')).toBe('first mine\n');
    // The refused write is the browser's own console line (412); nothing the panel threw.
    expect(panel.errors.filter((line) => !line.includes('status of 412 (Precondition Failed)'))).toEqual([]);
    expect(panel.errors.length).toBeLessThanOrEqual(1);
    expect(panel.external).toEqual([]);
  });

  it('an image is previewed, and a binary file offered for download, through media tickets: no token in any URL', async () => {
    panel = await newPanelPage('editor-media');
    await openAt('#open=pic.png');
    const image = `${visible} img.ed-image`;
    await panel.page.waitForFunction((selector) => {
      const img = document.querySelector<HTMLImageElement>(selector);
      return !!img && img.complete && img.naturalWidth > 0;
    }, image);
    // The browser fetches it itself, so the URL carries a ticket for this one file, never the panel's token.
    const src = new URL(await panel.page.$eval(image, (img) => (img as HTMLImageElement).src));
    expect(src.pathname).toBe('/workspace/media');
    expect(src.searchParams.get('path')).toBe('pic.png');
    expect(src.searchParams.get('ticket')).toMatch(/^\d+\./);
    expect(src.href).not.toContain('token=');
    expect(src.href).not.toContain(daemon.token);
    const imageLink = await panel.page.$eval(`${visible} .ed-media a.ed-download`, (a) => (a as HTMLAnchorElement).href);
    expect(imageLink).toContain('ticket=');
    expect(imageLink).not.toContain('token=');
    const imageDownload = await fetch(imageLink);
    expect(imageDownload.status).toBe(200);
    expect(imageDownload.headers.get('content-disposition')).toContain('attachment');
    expect(new Uint8Array(await imageDownload.arrayBuffer())).toEqual(new Uint8Array(PNG));
    expect(await panel.page.$eval(image, (img) => [(img as HTMLImageElement).naturalWidth, (img as HTMLImageElement).naturalHeight])).toEqual([4, 3]);
    // The caption gets the size the browser decoded.
    await panel.page.waitForFunction((text) => document.querySelector('.ed-body:not([hidden]) .ed-media-info')?.textContent === text, `${PNG.length} B · 4 × 3 px`);
    expect(await panel.page.isHidden('.ed-save')).toBe(true);
    await panel.screenshot('image');

    await panel.page.evaluate(() => {
      location.hash = '#open=blob.bin';
    });
    const link = `${visible} a.ed-download`;
    await panel.page.waitForSelector(`${visible} .ed-binary a.ed-download`);
    expect(await panel.page.getAttribute(link, 'download')).toBe('blob.bin');
    expect(await panel.page.textContent(`${visible} .ed-binary p`)).toBe('blob.bin is not text (14 B, application/octet-stream), so it is not shown here.');
    const href = await panel.page.$eval(link, (a) => (a as HTMLAnchorElement).href);
    expect(new URL(href).pathname).toBe('/workspace/media');
    expect(href).toContain('ticket=');
    expect(href).not.toContain('token=');
    expect(href).not.toContain(daemon.token);
    // A plain fetch, no Authorization header: the ticket alone lets it through.
    const download = await fetch(href);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-disposition')).toContain('attachment');
    expect(new Uint8Array(await download.arrayBuffer())).toEqual(BINARY);
    await panel.screenshot('binary');
    expect(panel.errors).toEqual([]);
    expect(panel.external).toEqual([]);
  });

  it('a tab closed while its load is held back builds no editor when the answer comes; two quick reloads end with the newest text', async () => {
    panel = await newPanelPage('editor-load-race');
    await trackEditors();
    let hold!: () => void;
    const held = new Promise<void>((resolve) => {
      hold = resolve;
    });
    let arrived!: () => void;
    const reached = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    await panel.page.route(/\/api\/file\?path=slow\.txt/, async (route) => {
      arrived();
      await held;
      await route.continue();
    });
    await openAt('#open=slow.txt');
    await reached;
    await panel.page.waitForSelector(`${tab('slow.txt')}[data-kind="loading"]`);
    await panel.screenshot('held');
    await panel.page.click(`${tab('slow.txt')} .ed-close`);
    await panel.page.waitForSelector('.ed-empty:not([hidden])');
    const answered = panel.page.waitForEvent('requestfinished', (request) => request.url().includes('/api/file?path=slow.txt'));
    hold();
    await answered;
    // Another file opened afterwards (three requests in a row): the held load's answer has been handled by then.
    await panel.page.evaluate(() => {
      location.hash = '#open=other.txt';
    });
    await panel.page.waitForFunction(() => document.querySelector('.ed-body:not([hidden]) .cm-line')?.textContent === 'another file');
    expect(await panel.page.$$eval('.ed-tab', (tabs) => tabs.map((node) => (node as HTMLElement).dataset.path))).toEqual(['other.txt']);
    expect(await panel.page.$$eval('.cm-editor', (editors) => editors.length)).toBe(1);
    expect(await editorViews()).toEqual({ live: 1, detached: 0 });
    expect(await panel.page.textContent('.statusbar')).not.toContain('slow.txt');
    await panel.screenshot('closed-then-other');

    // A missing file, then created and rewritten at once: the first reload's read is answered (with the first text)
    // only after the second change; the tab ends with the newest text.
    await panel.page.waitForSelector('#panel[data-change-feed="ready"]');
    const file = join(daemon.workspace.root, 'twice.txt');
    await panel.page.evaluate(() => {
      location.hash = '#open=twice.txt';
    });
    await panel.page.waitForSelector(`${visible} .ed-error`);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let firstRead!: () => void;
    const firstReadFetched = new Promise<void>((resolve) => {
      firstRead = resolve;
    });
    let reads = 0;
    await panel.page.route(/\/api\/file\?path=twice\.txt/, async (route) => {
      if (route.request().method() !== 'GET' || reads++ > 0) return route.continue();
      const response = await route.fetch(); // the disk as it is now, handed over later
      firstRead();
      await gate;
      await route.fulfill({ response });
    });
    await writeFile(file, 'first version\n');
    await firstReadFetched;
    await writeFile(file, 'second version, longer\n');
    await panel.page.waitForFunction(() => document.querySelector('.ed-tab[data-path="twice.txt"]')?.getAttribute('data-kind') === 'loading');
    release();
    await panel.page.waitForFunction(() => document.querySelector('.ed-body:not([hidden]) .cm-line')?.textContent === 'second version, longer');
    expect(await editorText()).toBe('second version, longer\n');
    expect(await panel.page.getAttribute(tab('twice.txt'), 'data-dirty')).toBe('false');
    expect((await editorViews()).detached).toBe(0);
    await panel.screenshot('newest');
    expect(panel.errors).toEqual([]);
    expect(panel.external).toEqual([]);
  });

  it('a double click on Compare builds one comparison, and none is left behind', async () => {
    panel = await newPanelPage('editor-compare-twice');
    await trackEditors();
    const file = join(daemon.workspace.root, 'compare.txt');
    await openAt('#open=compare.txt:1');
    await panel.page.waitForFunction(() => document.querySelector('.ed-body:not([hidden]) .cm-activeLine')?.textContent === 'base');
    await panel.page.keyboard.press('End');
    await panel.page.keyboard.type(' mine');
    await panel.page.waitForSelector(`${tab('compare.txt')}[data-dirty="true"]`);
    await writeFile(file, 'base\ntheirs\n');
    await panel.page.keyboard.press('Control+s');
    await panel.page.waitForSelector(`${visible} .ed-conflict`);
    // The merge view's code is fetched on this first use: the second click lands while the first is being built.
    await panel.page.dblclick(`${visible} .ed-compare-button`);
    await panel.page.waitForSelector(`${visible} .cm-mergeView`);
    await panel.page.waitForFunction(() => document.querySelector('.ed-body:not([hidden]) .ed-compare-button')?.getAttribute('aria-pressed') === 'true');
    expect(await panel.page.$$eval('.cm-mergeView', (views) => views.length)).toBe(1);
    // The tab's editor and the comparison's two sides; nothing built out of sight.
    expect(await editorViews()).toEqual({ live: 3, detached: 0 });
    await panel.screenshot('one-comparison');

    // Keep theirs settles the conflict: the comparison goes, its views destroyed.
    await panel.page.click(`${visible} .ed-theirs`);
    await panel.page.waitForSelector('.cm-mergeView', { state: 'detached' });
    expect(await editorText()).toBe('base\ntheirs\n');
    expect(await editorViews()).toEqual({ live: 1, detached: 0 });
    expect(panel.errors).toEqual([]);
    expect(panel.external).toEqual([]);
  });

  it('the same text seen on disk again keeps the comparison open, and Keep mine then overwrites the newest version', async () => {
    panel = await newPanelPage('editor-compare-again');
    await trackEditors();
    const file = join(daemon.workspace.root, 'again.txt');
    await openAt('#open=again.txt:1');
    await panel.page.waitForFunction(() => document.querySelector('.ed-body:not([hidden]) .cm-activeLine')?.textContent === 'base');
    await panel.page.keyboard.press('End');
    await panel.page.keyboard.type(' mine');
    await panel.page.waitForSelector(`${tab('again.txt')}[data-dirty="true"]`);
    await writeFile(file, 'base\ntheirs\n');
    await panel.page.keyboard.press('Control+s');
    await panel.page.waitForSelector(`${visible} .ed-conflict`);
    await panel.page.click(`${visible} .ed-compare-button`);
    await panel.page.waitForSelector(`${visible} .cm-mergeView`);
    const before = await panel.page.getAttribute(`${visible} .ed-conflict`, 'data-etag');
    await panel.page.$eval('.cm-mergeView', (view) => view.setAttribute('data-first', ''));

    // The same bytes written again: a new version of the same text (and, late or not, the live feed's echo of the
    // first write). Neither may throw away the comparison being read.
    await writeFile(file, 'base\ntheirs\n');
    const response = await fetch(`${daemon.url}/api/file?path=again.txt`, { headers: { authorization: `Bearer ${daemon.token}` } });
    const etag = response.headers.get('etag');
    await response.body?.cancel();
    expect(etag).toBeTruthy();
    expect(etag).not.toBe(before);
    await panel.page.waitForFunction((etag) => document.querySelector('.ed-body:not([hidden]) .ed-conflict')?.getAttribute('data-etag') === etag, etag);
    expect(await panel.page.$$eval('.cm-mergeView[data-first]', (views) => views.length)).toBe(1);
    expect(await panel.page.getAttribute(`${visible} .ed-compare-button`, 'aria-pressed')).toBe('true');
    expect(await editorViews()).toEqual({ live: 3, detached: 0 });

    // Keep mine is checked against the version on disk now, so it saves rather than meeting a conflict again.
    await panel.page.click(`${visible} .ed-mine`);
    await panel.page.waitForSelector('.cm-mergeView', { state: 'detached' });
    expect(await onDisk('again.txt')).toBe('base mine\n');
    expect(await panel.page.$$eval('.ed-conflict', (banners) => banners.length)).toBe(0);
    expect(await editorViews()).toEqual({ live: 1, detached: 0 });
    expect(panel.errors).toEqual([]);
    expect(panel.external).toEqual([]);
  });

  it('the tab strip is one tab stop (close buttons are not), Delete closes a tab, the close confirmation is described', async () => {
    panel = await newPanelPage('editor-a11y');
    await openAt('#open=a11y-one.txt');
    await panel.page.waitForFunction(() => document.querySelector('.ed-body:not([hidden]) .cm-line')?.textContent === 'one');
    await panel.page.evaluate(() => {
      location.hash = '#open=a11y-two.txt';
    });
    await panel.page.waitForFunction(() => document.querySelector('.ed-body:not([hidden]) .cm-line')?.textContent === 'two');
    expect(await panel.page.$$eval('.ed-close', (buttons) => buttons.map((button) => button.getAttribute('tabindex')))).toEqual(['-1', '-1']);
    // Tab from the active tab leaves the strip: neither the other tab nor a close button is a stop.
    await panel.page.focus(`${tab('a11y-two.txt')} [role=tab]`);
    await panel.page.keyboard.press('Shift+Tab');
    expect(await panel.page.evaluate(() => !!document.activeElement?.closest('.ed-tabs'))).toBe(false);
    await panel.page.focus(`${tab('a11y-two.txt')} [role=tab]`);
    await panel.page.keyboard.press('Tab');
    expect(await panel.page.evaluate(() => !!document.activeElement?.closest('.ed-tabs'))).toBe(false);

    // Delete on the focused tab closes it.
    await panel.page.focus(`${tab('a11y-two.txt')} [role=tab]`);
    await panel.page.keyboard.press('Delete');
    await panel.page.waitForSelector(tab('a11y-two.txt'), { state: 'detached' });
    await panel.page.waitForFunction(() => document.querySelector('.ed-body:not([hidden]) .cm-line')?.textContent === 'one');

    // With unsaved edits, the in-tab confirmation names its text as its description.
    await panel.page.click(`${visible} .cm-line`);
    await panel.page.keyboard.type('x');
    await panel.page.waitForSelector(`${tab('a11y-one.txt')}[data-dirty="true"]`);
    await panel.page.focus(`${tab('a11y-one.txt')} [role=tab]`);
    await panel.page.keyboard.press('Delete');
    const dialog = `${visible} [role=alertdialog]`;
    await panel.page.waitForSelector(dialog);
    const described = await panel.page.$eval(dialog, (box) => {
      const id = box.getAttribute('aria-describedby');
      return id ? (document.getElementById(id)?.textContent ?? null) : null;
    });
    expect(described).toBe('a11y-one.txt has unsaved changes.');
    await panel.screenshot('confirm');
    await panel.page.click(`${dialog} button >> text=Discard and close`);
    await panel.page.waitForSelector('.ed-empty:not([hidden])');
    expect(panel.errors).toEqual([]);
    expect(panel.external).toEqual([]);
  });

  it('a text file over the 5 MiB cap opens paged and read-only, with "load more", and a line further on is read up to', async () => {
    panel = await newPanelPage('editor-paged');
    await openAt('#open=big.log');
    const content = `${visible} .ed-content`;
    await panel.page.waitForSelector(`${content}[data-loaded-bytes="524288"]`);
    expect(await panel.page.getAttribute(content, 'data-size')).toBe(String(6 * 1024 * 1024));
    expect(await panel.page.textContent(`${visible} .ed-paged-info`)).toBe('6.0 MiB: too large to edit here, shown read-only — the first 512.0 KiB.');
    expect(await panel.page.textContent(`${visible} .cm-line`)).toBe(bigLine(0).trimEnd());
    expect(await panel.page.textContent('.ed-state')).toBe('read-only');
    expect(await panel.page.isHidden('.ed-save')).toBe(true);
    // Read-only: typing changes nothing.
    await panel.page.click(`${visible} .cm-line`);
    await panel.page.keyboard.type('zzz');
    expect(await panel.page.textContent(`${visible} .cm-line`)).toBe(bigLine(0).trimEnd());
    await panel.screenshot('first-page');

    await panel.page.click(`${visible} .ed-more`);
    await panel.page.waitForSelector(`${content}[data-loaded-bytes="1048576"]`);
    await panel.screenshot('second-page');

    // Line 20 000 lies in the third window: the editor reads on to it and puts the caret there.
    await panel.page.evaluate(() => {
      location.hash = '#open=big.log:20000';
    });
    await panel.page.waitForFunction((text) => document.querySelector('.ed-body:not([hidden]) .cm-activeLine')?.textContent === text, bigLine(19_999).trimEnd());
    expect(await panel.page.getAttribute(content, 'data-loaded-bytes')).toBe(String(3 * 512 * 1024));
    expect(await panel.page.textContent('.ed-pos')).toBe('Ln 20000, Col 1');
    await panel.screenshot('line-20000');
    expect(panel.errors).toEqual([]);
    expect(panel.external).toEqual([]);
  });

  it('a missing file shows the error in its tab and in the status bar, and opens once it is created', async () => {
    panel = await newPanelPage('editor-missing');
    await openAt('#open=gone.txt');
    await panel.page.waitForSelector(`${visible} .ed-error`);
    expect(await panel.page.textContent(`${visible} .ed-error p`)).toBe('Could not open gone.txt: no such file');
    expect(await panel.page.getAttribute('.statusbar', 'data-kind')).toBe('error');
    expect(await panel.page.textContent('.statusbar')).toBe(await panel.page.textContent(`${visible} .ed-error p`));
    await panel.screenshot('missing');

    // "Try again" while it is still missing: the same error, asked anew.
    await panel.page.click(`${visible} .ed-error button`);
    await panel.page.waitForSelector(`${visible} .ed-error`);
    expect(await panel.page.textContent(`${visible} .ed-error p`)).toBe('Could not open gone.txt: no such file');

    // Created on disk meanwhile: the live feed tells the tab, which opens it by itself.
    await writeFile(join(daemon.workspace.root, 'gone.txt'), 'back again\n');
    await panel.page.waitForFunction(() => document.querySelector('.ed-body:not([hidden]) .cm-line')?.textContent === 'back again');
    await panel.screenshot('found');
    expect(panel.errors).toEqual([]);
    expect(panel.external).toEqual([]);
  });
});

/** A real PNG: `width` × `height` RGB pixels, a gradient. */
function png(width: number, height: number): Uint8Array {
  const rows: number[] = [];
  for (let y = 0; y < height; y++) {
    rows.push(0); // filter: none
    for (let x = 0; x < width; x++) rows.push((x * 255) / (width - 1), (y * 255) / (height - 1), 128);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8 bits, RGB
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.from(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

function crc32(bytes: Uint8Array): number {
  let crc = ~0;
  for (const byte of bytes) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return ~crc >>> 0;
}
