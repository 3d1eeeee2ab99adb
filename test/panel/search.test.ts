import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createInProcessBuilder, type IndexBuilder } from '../../core/search/content-index/index-builder.ts';
import { newPanelPage, openPanel, startPanelDaemon, type PanelDaemon, type PanelPage } from '../support/panel-browser.ts';

/**
 * Quick open (Ctrl-P over `GET /api/files/search`) and the Search view (`GET /workspace/search`) in a real
 * browser against a real daemon: what is listed, what opens (the address the panel sets), the toggles, paging,
 * the daemon's notes and errors shown in place, the index's freshness.
 */

const PAGE_COUNT = 60; // files holding `pagerword`, twice each: more than one page of the view's 50 files
const pageFiles = Object.fromEntries(
  Array.from({ length: PAGE_COUNT }, (_, i) => [`pages/p${String(i + 1).padStart(2, '0')}.txt`, 'pagerword one\nfiller\nPagerword two\n']),
);

const SEED: Record<string, string> = {
  'README.md': '# demo\n',
  'src/widget-utils.ts': 'export const widgetSize = 3;\n',
  'src/components/WidgetPanel.tsx': [
    "import { widgetSize } from '../widget-utils';",
    '',
    'export function WidgetPanel() {',
    '  const size = widgetSize;',
    '  // a comment',
    '  const label = "panel";',
    "  return label + 'zebra-quartz-731' + size;",
    '}',
    '',
  ].join('\n'),
  'docs/animals.md': 'Quokka\nquokka\nQUOKKA\nthe quokka met a quokkas herd\nnothing here\n',
  'src/parse.ts': 'const a = 1;\nconst call = foo(bar;\n',
  ...pageFiles,
};

let daemon: PanelDaemon;
let panel: PanelPage | undefined;

beforeAll(async () => {
  daemon = await startPanelDaemon(SEED);
});
afterAll(async () => {
  await daemon?.close();
});
afterEach(async () => {
  await panel?.close();
  panel = undefined;
});

async function open(name: string): Promise<PanelPage> {
  panel = await newPanelPage(name);
  await openPanel(panel, daemon.signInUrl);
  return panel;
}

/** Waits until `read()`, run in the page, equals `expected` (vitest polls it), failing with what it was instead. */
async function until<T>(p: PanelPage, read: () => T, expected: T, what: string): Promise<void> {
  await expect.poll(() => p.page.evaluate(read), { timeout: 8_000, message: what }).toEqual(expected);
}

const optionPaths = () => [...document.querySelectorAll('#quick-open-list [role=option]')].map((option) => (option as HTMLElement).dataset.path);
const listedQuery = () => (document.querySelector('#quick-open-list') as HTMLElement | null)?.dataset.query ?? null;
const summary = () => document.querySelector('#view-search .search-summary')?.textContent ?? null;
const hitCount = () => document.querySelectorAll('#view-search .search-hit').length;

function clean(p: PanelPage): void {
  expect(p.errors).toEqual([]);
  expect(p.external).toEqual([]);
}

describe('quick open', () => {
  it('Ctrl-P opens it, typing part of a name lists the file, Enter opens it (the address says so)', async () => {
    const p = await open('quick-open-enter');
    expect(await p.page.isVisible('[role=dialog][aria-label="Go to file"]')).toBe(false);
    await p.page.keyboard.press('Control+p');
    await p.page.waitForSelector('[role=dialog][aria-label="Go to file"]', { state: 'visible' });
    // It opens on the shallowest files (q=""), the input focused.
    await until(p, listedQuery, '', 'the first list');
    expect(await p.page.evaluate(() => document.activeElement?.getAttribute('role'))).toBe('combobox');
    await p.screenshot('opened');

    await p.page.keyboard.type('WidgetPa');
    await until(p, optionPaths, ['src/components/WidgetPanel.tsx'], 'files matching WidgetPa');
    expect(await p.page.textContent('#quick-open-option-0 .quick-open-name')).toBe('WidgetPanel.tsx');
    expect(await p.page.textContent('#quick-open-option-0 .quick-open-folder')).toBe('src/components');
    expect(await p.page.getAttribute('[role=combobox]', 'aria-activedescendant')).toBe('quick-open-option-0');
    expect(await p.page.getAttribute('[role=combobox]', 'aria-expanded')).toBe('true');
    await p.screenshot('typed');

    await p.page.keyboard.press('Enter');
    await p.page.waitForSelector('[role=dialog][aria-label="Go to file"]', { state: 'hidden' });
    expect(await p.page.evaluate(() => location.hash)).toBe(`#open=${encodeURIComponent('src/components/WidgetPanel.tsx')}`);
    await p.screenshot('opened-file');
    clean(p);
  });

  it('arrow keys choose, a leading @ is only the summons, Escape closes and gives focus back, the top-bar button opens it', async () => {
    const p = await open('quick-open-keys');
    await p.page.click('.topbar-actions button:has-text("Go to file")');
    await p.page.waitForSelector('[role=dialog][aria-label="Go to file"]', { state: 'visible' });
    await p.page.keyboard.type('widget');
    // The answer to the whole text, not to one typed on the way (`wid` lists the same files, and its answer coming
    // after a key press redraws the list under it).
    await until(p, listedQuery, 'widget', 'the query the list answers');
    // Base names holding the text first, then the shorter path (docs/ori.md#search).
    await until(p, optionPaths, ['src/widget-utils.ts', 'src/components/WidgetPanel.tsx'], 'files matching widget');
    await p.page.keyboard.press('ArrowDown');
    expect(await p.page.getAttribute('[role=combobox]', 'aria-activedescendant')).toBe('quick-open-option-1');
    expect(await p.page.getAttribute('#quick-open-option-1', 'aria-selected')).toBe('true');
    await p.page.keyboard.press('ArrowDown'); // wraps
    expect(await p.page.getAttribute('[role=combobox]', 'aria-activedescendant')).toBe('quick-open-option-0');
    await p.page.keyboard.press('ArrowUp');
    await p.screenshot('second-chosen');

    // Typed in one go (each key aborts the request before it): only the last text's answer is shown.
    await p.page.fill('[role=combobox]', '');
    await p.page.keyboard.type('@pages/p1');
    await until(p, listedQuery, '@pages/p1', 'the query the list answers');
    expect(await p.page.evaluate(optionPaths)).toEqual(Array.from({ length: 10 }, (_, i) => `pages/p1${i}.txt`));
    await p.screenshot('at-summons');

    await p.page.keyboard.press('Escape');
    await p.page.waitForSelector('[role=dialog][aria-label="Go to file"]', { state: 'hidden' });
    expect(await p.page.evaluate(() => document.activeElement?.textContent)).toBe('Go to file');
    expect(await p.page.evaluate(() => location.hash)).toBe('');

    // Reopened, a nothing-matching query says so; then the choice made with the keys is what opens.
    await p.page.keyboard.press('Control+p');
    await p.page.waitForSelector('[role=dialog][aria-label="Go to file"]', { state: 'visible' });
    await p.page.fill('[role=combobox]', 'no-such-file-anywhere');
    await until(p, listedQuery, 'no-such-file-anywhere', 'the query the list answers');
    expect(await p.page.textContent('.quick-open-message')).toBe('No matching files');
    await p.page.fill('[role=combobox]', 'widget');
    await until(p, listedQuery, 'widget', 'the query the list answers');
    await until(p, optionPaths, ['src/widget-utils.ts', 'src/components/WidgetPanel.tsx'], 'files matching widget');
    await p.page.keyboard.press('ArrowUp'); // wraps to the last
    await p.page.keyboard.press('Enter');
    await p.page.waitForSelector('[role=dialog][aria-label="Go to file"]', { state: 'hidden' });
    expect(await p.page.evaluate(() => location.hash)).toBe(`#open=${encodeURIComponent('src/components/WidgetPanel.tsx')}`);
    clean(p);
  });
});

describe('the side bar views', () => {
  it('their tab list is one tab stop: arrows, Home and End move along the tabs and show each view', async () => {
    const p = await open('side-tabs-keys');
    const tabState = () => [...document.querySelectorAll('.side-tabs [role=tab]')].map((tab) => `${tab.id}:${tab.getAttribute('tabindex')}:${tab.getAttribute('aria-selected')}`);
    expect(await p.page.evaluate(tabState)).toEqual(['tab-files:0:true', 'tab-search:-1:false', 'tab-chat:-1:false']);
    await p.page.focus('#tab-files');
    await p.page.keyboard.press('ArrowRight');
    expect(await p.page.evaluate(() => document.activeElement?.id)).toBe('tab-search');
    expect(await p.page.evaluate(tabState)).toEqual(['tab-files:-1:false', 'tab-search:0:true', 'tab-chat:-1:false']);
    expect(await p.page.isVisible('#view-search')).toBe(true);
    await p.page.keyboard.press('End');
    expect(await p.page.evaluate(() => document.activeElement?.id)).toBe('tab-chat');
    await p.page.keyboard.press('ArrowRight'); // wraps
    expect(await p.page.evaluate(() => document.activeElement?.id)).toBe('tab-files');
    await p.page.keyboard.press('ArrowLeft');
    expect(await p.page.evaluate(() => document.activeElement?.id)).toBe('tab-chat');
    await p.page.keyboard.press('Home');
    expect(await p.page.evaluate(tabState)).toEqual(['tab-files:0:true', 'tab-search:-1:false', 'tab-chat:-1:false']);
    expect(await p.page.evaluate(() => document.activeElement?.id)).toBe('tab-files');
    await p.screenshot('files-again');
    clean(p);
  });
});

async function openSearchView(name: string): Promise<PanelPage> {
  const p = await open(name);
  await p.page.click('#tab-search');
  await p.page.waitForSelector('#view-search input[name=query]', { state: 'visible' });
  return p;
}

describe('search view', () => {
  it('finds a unique string with its line, and clicking the hit opens that line', async () => {
    // Ctrl-Shift-F shows the view with its query field focused.
    const p = await open('search-unique');
    expect(await p.page.evaluate(() => document.activeElement?.getAttribute('name') ?? null)).toBe(null);
    await p.page.keyboard.press('Control+Shift+F');
    await until(p, () => document.activeElement?.getAttribute('name') ?? null, 'query', 'the focused field');
    expect(await p.page.getAttribute('#tab-search', 'aria-selected')).toBe('true');
    await p.page.keyboard.type('zebra-quartz-731');
    await until(p, summary, '1 result in 1 file', 'summary');
    const hit = '#view-search .search-hit';
    expect(await p.page.getAttribute('#view-search .search-group', 'data-path')).toBe('src/components/WidgetPanel.tsx');
    expect(await p.page.textContent(`${hit} .search-hit-line`)).toBe('7');
    expect(await p.page.textContent(`${hit} .search-hit-text`)).toBe("  return label + 'zebra-quartz-731' + size;");
    expect(await p.page.textContent(`${hit} mark`)).toBe('zebra-quartz-731');
    expect(await p.page.textContent('#view-search .search-freshness')).toMatch(/^Search index (up to date|building( \(\d+%\))?: results may be incomplete|catching up.*)$/);
    await p.screenshot('found');

    await p.page.click(hit);
    await until(p, () => location.hash, `#open=${encodeURIComponent('src/components/WidgetPanel.tsx')}:7`, 'the address');
    await p.screenshot('clicked');
    clean(p);
  });

  it('the case and whole-word toggles change the results, with exact counts', async () => {
    const p = await openSearchView('search-toggles');
    await p.page.fill('#view-search input[name=query]', 'quokka');
    await until(p, summary, '4 results in 1 file', 'case-insensitive');
    expect(await p.page.evaluate(() => [...document.querySelectorAll('#view-search .search-hit-line')].map((e) => e.textContent))).toEqual(['1', '2', '3', '4']);
    expect(await p.page.evaluate(() => [...document.querySelectorAll('#view-search .search-hit mark')].map((e) => e.textContent))).toEqual(['Quokka', 'quokka', 'QUOKKA', 'quokka', 'quokka']);
    await p.screenshot('insensitive');

    await p.page.click('#view-search button[name=caseSensitive]');
    expect(await p.page.getAttribute('#view-search button[name=caseSensitive]', 'aria-pressed')).toBe('true');
    await until(p, summary, '2 results in 1 file', 'case-sensitive');
    expect(await p.page.evaluate(() => [...document.querySelectorAll('#view-search .search-hit-line')].map((e) => e.textContent))).toEqual(['2', '4']);
    await p.screenshot('sensitive');

    // Whole word: `quokkas` on line 4 no longer counts, its `quokka` still does.
    await p.page.click('#view-search button[name=word]');
    await until(p, () => [...document.querySelectorAll('#view-search .search-hit mark')].map((e) => e.textContent), ['quokka', 'quokka'], 'whole-word marks');
    expect(await p.page.evaluate(summary)).toBe('2 results in 1 file');
    await p.page.click('#view-search button[name=caseSensitive]');
    await until(p, summary, '4 results in 1 file', 'back to any case');

    // The toggles belong to Text mode: another mode turns them off.
    await p.page.selectOption('#view-search select[name=mode]', 'files');
    expect(await p.page.isDisabled('#view-search button[name=caseSensitive]')).toBe(true);
    await p.page.fill('#view-search input[name=query]', 'animals');
    await until(p, summary, '1 file', 'files mode');
    expect(await p.page.getAttribute('#view-search .search-hit', 'data-path')).toBe('docs/animals.md');
    await p.screenshot('files-mode');
    clean(p);
  });

  it('"More results" appends the next page, and the total matches the files', async () => {
    const p = await openSearchView('search-paging');
    // What the seeded files hold, counted here: lines holding the word, any case.
    let lines = 0;
    for (const path of Object.keys(pageFiles)) {
      lines += (await readFile(join(daemon.workspace.root, path), 'utf8')).split('\n').filter((line) => /pagerword/i.test(line)).length;
    }
    expect(lines).toBe(2 * PAGE_COUNT);

    await p.page.fill('#view-search input[name=query]', 'pagerword');
    await until(p, summary, `${lines} results in ${PAGE_COUNT} files — showing 100`, 'first page');
    expect(await p.page.evaluate(hitCount)).toBe(100);
    expect(await p.page.evaluate(() => document.querySelectorAll('#view-search .search-group').length)).toBe(50);
    expect(await p.page.isVisible('#view-search .search-more')).toBe(true);
    await p.screenshot('first-page');

    await p.page.click('#view-search .search-more');
    await until(p, summary, `${lines} results in ${PAGE_COUNT} files`, 'all pages');
    expect(await p.page.evaluate(hitCount)).toBe(lines);
    const groups = await p.page.evaluate(() => [...document.querySelectorAll('#view-search .search-group')].map((e) => (e as HTMLElement).dataset.path));
    expect(new Set(groups).size).toBe(PAGE_COUNT);
    expect(groups.sort()).toEqual(Object.keys(pageFiles).sort());
    expect(await p.page.isVisible('#view-search .search-more')).toBe(false);
    await p.page.evaluate(() => document.querySelector('.sidebar')!.scrollTo(0, 1e6));
    await p.screenshot('all-pages');
    clean(p);
  });

  it('a pattern that is not a regex is searched as literal text and says so inline; a refused query shows the daemon\'s message inline', async () => {
    const p = await openSearchView('search-errors');
    await p.page.click('#view-search button[name=regex]');
    await p.page.fill('#view-search input[name=query]', 'foo(bar');
    await until(p, summary, '1 result in 1 file', 'the literal hit');
    expect(await p.page.textContent('#view-search .search-note')).toBe('Note: ran as literal text');
    expect(await p.page.getAttribute('#view-search .search-hit', 'data-path')).toBe('src/parse.ts');
    expect(await p.page.textContent('#view-search .search-hit mark')).toBe('foo(bar');
    await p.screenshot('bad-regex');

    // A regex that compiles: no note.
    await p.page.fill('#view-search input[name=query]', 'foo\\(ba[rz]');
    await until(p, () => document.querySelector('#view-search .search-notes')?.hasAttribute('hidden'), true, 'no note');
    expect(await p.page.evaluate(summary)).toBe('1 result in 1 file');

    // The daemon refuses an include over 512 characters: its message, in the view.
    await p.page.fill('#view-search input[name=include]', 'x'.repeat(513));
    await until(p, () => document.querySelector('#view-search .search-error:not([hidden])')?.textContent ?? null, 'invalid query: include: include must be at most 512 characters', 'the error');
    expect(await p.page.evaluate(hitCount)).toBe(0);
    expect(await p.page.getAttribute('#view-search .search-error', 'role')).toBe('alert');
    await p.screenshot('refused');

    // Fixed, the error goes.
    await p.page.fill('#view-search input[name=include]', 'src');
    await until(p, summary, '1 result in 1 file', 'after the fix');
    expect(await p.page.isVisible('#view-search .search-error')).toBe(false);
    // The one 400 is the browser's own console line for the refused request; nothing the panel logged or threw.
    expect(p.errors).toEqual(['console: Failed to load resource: the server responded with a status of 400 (Bad Request)']);
    expect(p.external).toEqual([]);
  });
});

describe('search view while the index builds', () => {
  let building: PanelDaemon;
  let release!: () => void;

  beforeAll(async () => {
    const gate = new Promise<void>((resolve) => (release = resolve));
    const inner = createInProcessBuilder(async (entry) => new Uint8Array(await readFile(entry.absolutePath)));
    const held: IndexBuilder = {
      async build(job, onProgress) {
        await gate;
        return inner.build(job, onProgress);
      },
      close: () => inner.close(),
    };
    building = await startPanelDaemon({ 'notes/todo.md': 'first\nbuildword here\n' }, { search: { indexBuilder: held } });
  });
  afterAll(async () => {
    release?.();
    await building?.close();
  });

  it('says results may be incomplete while it builds, and up to date once built', async () => {
    panel = await newPanelPage('search-building');
    const p = panel;
    await openPanel(p, building.signInUrl);
    await p.page.click('#tab-search');
    await p.page.fill('#view-search input[name=query]', 'buildword');
    await until(p, summary, '1 result in 1 file', 'answered while building');
    expect(await p.page.getAttribute('#view-search .search-freshness', 'data-state')).toBe('building');
    expect(await p.page.textContent('#view-search .search-freshness')).toBe('Search index building (0%): results may be incomplete');
    await p.screenshot('building');

    release();
    await building.server.search.settled();
    await p.page.press('#view-search input[name=query]', 'Enter');
    await until(p, () => document.querySelector('#view-search .search-freshness')?.getAttribute('data-state') ?? null, 'fresh', 'freshness once built');
    expect(await p.page.textContent('#view-search .search-freshness')).toBe('Search index up to date');
    expect(await p.page.evaluate(summary)).toBe('1 result in 1 file');
    await p.screenshot('built');
    clean(p);
  });
});
