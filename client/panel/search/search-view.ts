import type { HttpAnswer, HttpInput } from '../../http-client.ts';
import { h, replaceChildren } from '../dom.ts';
import type { PanelContext } from '../shell/panel-context.ts';
import { debounce } from '../shared/debounce.ts';
import { messageOf } from '../shared/errors.ts';
import { nameAndFolder } from '../shared/paths.ts';
import { inTerminal } from '../shell/keys.ts';
import { highlighted, isAbort } from './search-common.ts';
import './search.css';

type Answer = HttpAnswer<'GET /workspace/search'>;
type Group = Answer['groups'][number];
type Hit = Group['hits'][number];
type Query = NonNullable<HttpInput<'GET /workspace/search'>['query']>;
type Mode = NonNullable<Query['mode']>;

/** Keystrokes in the query or include field are gathered this long before a search goes out. */
const DEBOUNCE_MS = 250;
/** Files per page (the route's cap is 300; fewer keep the side bar quick to draw, "More results" brings the rest). */
export const PAGE_FILES = 50;

/** The route's seven modes, as the selector names them; `find` first: the toggles belong to it. */
const MODES: readonly { mode: Mode; label: string; placeholder: string }[] = [
  { mode: 'find', label: 'Text', placeholder: 'Search text' },
  { mode: 'q', label: 'Smart (path, name, regex or prose)', placeholder: 'Search anything' },
  { mode: 'files', label: 'File names', placeholder: 'Part of a path' },
  { mode: 'def', label: 'Definition', placeholder: 'Exact name of a definition' },
  { mode: 'refs', label: 'References', placeholder: 'Name to find the uses of' },
  { mode: 'sym', label: 'Symbols', placeholder: 'Symbol name or glob' },
  { mode: 'ast', label: 'Syntax pattern', placeholder: 'e.g. console.log($X)' },
];

/**
 * The Search view of the side bar (docs/panel.md#quick-open-and-search) over `GET /workspace/search`
 * (docs/intentic-search.md): a query, the three `find` toggles (case, whole word, regex), the mode, an include
 * field; hits grouped by file with their matches marked; "More results" follows the answer's cursor; the index's
 * freshness and the daemon's notes, hints and errors are shown in the view itself.
 */
export function mountSearch(ctx: PanelContext): void {
  const view = new SearchView(ctx);
  // Shown by a person (its tab, Ctrl-Shift-F): its query takes the focus. Shown by the shell as the first view at
  // start-up: focus stays where the page put it.
  let mounted = false;
  ctx.shell.addView({ id: 'search', title: 'Search', element: view.element, onShow: () => mounted && view.focus() });
  mounted = true;
  window.addEventListener(
    'keydown',
    (event) => {
      if (!(event.ctrlKey || event.metaKey) || !event.shiftKey || event.altKey || event.key.toLowerCase() !== 'f') return;
      if (inTerminal(event.target)) return; // the terminal's key
      event.preventDefault();
      event.stopPropagation();
      ctx.shell.showView('search');
    },
    { capture: true },
  );
}

class SearchView {
  readonly element: HTMLElement;
  readonly #ctx: PanelContext;
  readonly #query: HTMLInputElement;
  readonly #include: HTMLInputElement;
  readonly #mode: HTMLSelectElement;
  readonly #caseSensitive: HTMLButtonElement;
  readonly #word: HTMLButtonElement;
  readonly #regex: HTMLButtonElement;
  readonly #freshness: HTMLElement;
  readonly #summary: HTMLElement;
  readonly #error: HTMLElement;
  readonly #notes: HTMLElement;
  readonly #results: HTMLOListElement;
  readonly #more: HTMLButtonElement;
  readonly #typing = debounce(() => void this.#search(), DEBOUNCE_MS);
  #request: AbortController | undefined;
  /** The parameters of the answer on screen: a cursor is only good for the very query it came from. */
  #shownQuery: Query | undefined;
  #cursor: string | undefined;
  #shownHits = 0;

  constructor(ctx: PanelContext) {
    this.#ctx = ctx;
    this.#query = h('input', { class: 'search-query', name: 'query', type: 'text', 'aria-label': 'search', placeholder: 'Search text', autocomplete: 'off', spellcheck: 'false' });
    this.#caseSensitive = toggle('caseSensitive', 'Aa', 'Match case');
    this.#word = toggle('word', 'ab', 'Match whole word');
    this.#regex = toggle('regex', '.*', 'Use regular expression');
    this.#mode = h('select', { class: 'search-mode', name: 'mode', 'aria-label': 'mode' }, ...MODES.map(({ mode, label }) => h('option', { value: mode }, label)));
    this.#include = h('input', { class: 'search-include', name: 'include', type: 'text', 'aria-label': 'files to include', placeholder: 'files to include: src, *.ts, !*.test.ts', autocomplete: 'off', spellcheck: 'false' });
    this.#freshness = h('div', { class: 'search-freshness' });
    this.#summary = h('div', { class: 'search-summary', role: 'status', 'aria-live': 'polite' });
    this.#error = h('div', { class: 'search-error', role: 'alert', hidden: true });
    this.#notes = h('div', { class: 'search-notes', hidden: true });
    this.#results = h('ol', { class: 'search-results', 'aria-label': 'search results' });
    this.#more = h('button', { class: 'search-more', type: 'button', hidden: true }, 'More results');

    const form = h(
      'form',
      { class: 'search-form', role: 'search' },
      h('div', { class: 'search-row' }, this.#query, h('div', { class: 'search-toggles', role: 'group', 'aria-label': 'text options' }, this.#caseSensitive, this.#word, this.#regex)),
      h('div', { class: 'search-row' }, this.#mode),
      h('div', { class: 'search-row' }, this.#include),
    );
    this.element = h('section', { class: 'search-view' }, form, this.#freshness, this.#error, this.#notes, this.#summary, this.#results, this.#more);

    // Enter searches at once (a form with two text fields and no submit button never submits by itself).
    form.addEventListener('submit', (event) => event.preventDefault());
    for (const input of [this.#query, this.#include]) {
      input.addEventListener('input', () => this.#typing.schedule());
      input.addEventListener('keydown', (event) => {
        if (event.key !== 'Enter' || event.isComposing) return;
        event.preventDefault();
        void this.#search();
      });
    }
    for (const button of [this.#caseSensitive, this.#word, this.#regex]) {
      button.addEventListener('click', () => {
        button.setAttribute('aria-pressed', String(button.getAttribute('aria-pressed') !== 'true'));
        void this.#search();
      });
    }
    this.#mode.addEventListener('change', () => {
      this.#modeChanged();
      void this.#search();
    });
    this.#more.addEventListener('click', () => void this.#loadMore());
    this.#results.addEventListener('click', (event) => {
      const hit = (event.target as Element).closest<HTMLElement>('.search-hit');
      if (!hit) return;
      const path = hit.dataset.path!;
      const line = Number(hit.dataset.line);
      this.#ctx.openFile(path, { line }).catch((error: unknown) => this.#ctx.status(messageOf(error), 'error'));
    });
    this.#modeChanged();
  }

  focus(): void {
    this.#query.focus();
    this.#query.select();
  }

  /** The toggles change only `find` (docs/intentic-search.md#query): elsewhere they are shown but off. */
  #modeChanged(): void {
    const mode = this.#mode.value as Mode;
    const textual = mode === 'find';
    for (const button of [this.#caseSensitive, this.#word, this.#regex]) {
      button.disabled = !textual;
      button.title = textual ? button.dataset.title! : `${button.dataset.title} (Text mode only)`;
    }
    this.#query.placeholder = MODES.find((entry) => entry.mode === mode)?.placeholder ?? 'Search';
  }

  #params(): Query {
    const mode = this.#mode.value as Mode;
    const query: Query = { query: this.#query.value, mode, limit: String(PAGE_FILES) };
    if (mode === 'find') {
      query.caseSensitive = String(pressed(this.#caseSensitive));
      query.word = String(pressed(this.#word));
      query.literal = String(!pressed(this.#regex));
    }
    if (this.#include.value.trim() !== '') query.include = this.#include.value;
    return query;
  }

  /** A fresh search from the form: the answer replaces what is shown. */
  async #search(): Promise<void> {
    this.#typing.cancel();
    this.#request?.abort();
    const params = this.#params();
    // The route wants 2–512 characters; fewer than 2 is someone still typing, not an error to show.
    if (params.query.length < 2) {
      this.#request = undefined;
      this.#clear();
      this.#summary.textContent = params.query.length === 0 ? '' : 'Type at least 2 characters';
      this.element.dataset.state = 'idle';
      return;
    }
    const request = (this.#request = new AbortController());
    this.element.dataset.state = 'searching';
    this.#more.disabled = true;
    let answer: Answer;
    try {
      answer = await this.#ctx.client.call('GET /workspace/search', { query: params, signal: request.signal });
    } catch (error) {
      if (isAbort(error) || request.signal.aborted) return;
      this.#clear();
      this.#showError(messageOf(error));
      this.element.dataset.state = 'error';
      return;
    }
    if (request.signal.aborted) return;
    this.#clear();
    this.#shownQuery = params;
    this.#show(answer);
  }

  /** The next page of the answer on screen, appended. */
  async #loadMore(): Promise<void> {
    const params = this.#shownQuery;
    const cursor = this.#cursor;
    if (params === undefined || cursor === undefined) return;
    this.#request?.abort();
    const request = (this.#request = new AbortController());
    this.#more.disabled = true;
    this.element.dataset.state = 'searching';
    let answer: Answer;
    try {
      answer = await this.#ctx.client.call('GET /workspace/search', { query: { ...params, after: cursor }, signal: request.signal });
    } catch (error) {
      if (isAbort(error) || request.signal.aborted) return;
      this.#showError(messageOf(error));
      this.#more.disabled = false;
      this.element.dataset.state = 'error';
      return;
    }
    if (request.signal.aborted) return;
    this.#show(answer);
  }

  #clear(): void {
    this.#shownQuery = undefined;
    this.#cursor = undefined;
    this.#shownHits = 0;
    this.#results.replaceChildren();
    this.#more.hidden = true;
    this.#summary.textContent = '';
    this.#error.hidden = true;
    this.#error.textContent = '';
    this.#notes.hidden = true;
    this.#notes.replaceChildren();
    this.#freshness.textContent = '';
    delete this.#freshness.dataset.state;
  }

  #showError(message: string): void {
    this.#error.textContent = message;
    this.#error.hidden = false;
  }

  #show(answer: Answer): void {
    this.#error.hidden = true;
    for (const group of answer.groups) this.#results.append(this.#group(group, answer.mode));
    this.#shownHits += answer.shown;
    this.#cursor = answer.truncated ? answer.cursor : undefined;
    this.#more.hidden = this.#cursor === undefined;
    this.#more.disabled = false;

    const notes: HTMLElement[] = [];
    if (answer.note) notes.push(h('p', { class: 'search-note' }, `Note: ${answer.note}`));
    if (answer.hint) notes.push(h('p', { class: 'search-hint' }, `Hint: ${answer.hint}`));
    replaceChildren(this.#notes, ...notes);
    this.#notes.hidden = notes.length === 0;

    this.#summary.textContent = summaryOf(answer, this.#shownHits);
    this.#freshness.dataset.state = answer.freshness.state;
    this.#freshness.textContent = freshnessOf(answer.freshness);
    this.element.dataset.state = 'done';
  }

  #group(group: Group, mode: Mode): HTMLLIElement {
    const { name, folder } = nameAndFolder(group.path);
    return h(
      'li',
      { class: 'search-group', 'data-path': group.path },
      h(
        'div',
        { class: 'search-file', title: group.path },
        h('span', { class: 'search-file-name' }, name),
        folder ? h('span', { class: 'search-file-folder' }, folder) : null,
        h('span', { class: 'search-file-count', 'aria-label': `${group.hits.length} ${group.hits.length === 1 ? 'hit' : 'hits'}${group.capped ? ', more not shown' : ''}` }, `${group.hits.length}${group.capped ? '+' : ''}`),
      ),
      mode === 'files' ? null : h('ul', { class: 'search-hits' }, ...group.hits.map((hit) => h('li', {}, hitButton(group.path, hit)))),
      // A `files` hit is the path itself: the file's row opens it.
      mode === 'files' ? hitButton(group.path, group.hits[0] ?? { line: 1, text: group.path, spans: [], tags: [{ kind: 'fuzzy' }] }, 'search-hit search-hit-file') : null,
    );
  }
}

function hitButton(path: string, hit: Hit, className = 'search-hit'): HTMLButtonElement {
  return h(
    'button',
    { class: className, type: 'button', 'data-path': path, 'data-line': hit.line, title: `${path}:${hit.line}` },
    h('span', { class: 'search-hit-line' }, String(hit.line)),
    h('span', { class: 'search-hit-text' }, ...highlighted(hit.text, hit.spans)),
    hit.context ? h('span', { class: 'search-hit-context' }, hit.context) : null,
  );
}

function toggle(name: string, label: string, title: string): HTMLButtonElement {
  return h('button', { class: `search-toggle search-toggle-${name}`, type: 'button', name, 'aria-pressed': 'false', 'aria-label': title, title, 'data-title': title }, label);
}

function pressed(button: HTMLButtonElement): boolean {
  return button.getAttribute('aria-pressed') === 'true';
}

function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** "12 results in 3 files", "at least …" when a file's hits were capped, "— showing N" while pages remain. */
export function summaryOf(answer: Pick<Answer, 'mode' | 'total' | 'files' | 'partial' | 'truncated'>, shownHits: number): string {
  if (answer.total === 0) return 'No results';
  const floor = answer.partial ? 'at least ' : '';
  const text = answer.mode === 'files' ? `${floor}${plural(answer.files, 'file', 'files')}` : `${floor}${plural(answer.total, 'result', 'results')} in ${plural(answer.files, 'file', 'files')}`;
  return answer.truncated ? `${text} — showing ${shownHits}` : text;
}

/** What the answer's `freshness` means for the person reading the results. */
export function freshnessOf(freshness: Answer['freshness']): string {
  switch (freshness.state) {
    case 'building':
      return `Search index building${freshness.progress === undefined ? '' : ` (${Math.floor(freshness.progress * 100)}%)`}: results may be incomplete`;
    case 'stale':
      return `Search index catching up${freshness.behind === undefined ? '' : `: ${plural(freshness.behind, 'changed file', 'changed files')} read directly`}`;
    default:
      return 'Search index up to date';
  }
}
