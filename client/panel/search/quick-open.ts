import type { HttpAnswer } from '../../http-client.ts';
import { h, replaceChildren } from '../dom.ts';
import type { PanelContext } from '../shell/panel-context.ts';
import { debounce } from '../shared/debounce.ts';
import { messageOf } from '../shared/errors.ts';
import { nameAndFolder } from '../shared/paths.ts';
import { inTerminal } from '../shell/keys.ts';
import { isAbort } from './search-common.ts';
import './search.css';

type FoundFile = HttpAnswer<'GET /api/files/search'>['files'][number];

/** Keystrokes are gathered this long before a request goes out. */
const DEBOUNCE_MS = 120;
/** Files asked for per query (the route's default is 50, its cap 500). */
const LIMIT = 50;

/**
 * Quick open (docs/panel.md#quick-open-and-search): Ctrl-P / Cmd-P or the top bar's button opens a palette over
 * ori's `GET /api/files/search?q=` (docs/ori.md#search). A combobox with a listbox of files (name, folder), arrow
 * keys move, Enter opens through `ctx.openFile`, Escape closes. Each keystroke aborts the request before it, so
 * a slow answer to an older query never replaces a newer one.
 */
export function mountQuickOpen(ctx: PanelContext): void {
  const palette = new QuickOpen(ctx);
  ctx.shell.addAction('Go to file', 'Go to file (Ctrl+P)', () => palette.open());
  // Capture: before anything focused (an editor, a terminal) sees it; preventDefault also stops the print dialog.
  window.addEventListener(
    'keydown',
    (event) => {
      if (!(event.ctrlKey || event.metaKey) || event.altKey || event.shiftKey || event.key.toLowerCase() !== 'p') return;
      if (inTerminal(event.target)) return; // a terminal's own key (Ctrl-P: the shell's previous command)
      event.preventDefault();
      event.stopPropagation();
      palette.open();
    },
    { capture: true },
  );
}

class QuickOpen {
  readonly #ctx: PanelContext;
  readonly #dialog: HTMLDialogElement;
  readonly #input: HTMLInputElement;
  readonly #list: HTMLUListElement;
  readonly #message: HTMLElement;
  #files: FoundFile[] = [];
  #active = -1;
  readonly #typing = debounce(() => void this.#search(), DEBOUNCE_MS);
  #request: AbortController | undefined;
  #returnFocus: HTMLElement | null = null;

  constructor(ctx: PanelContext) {
    this.#ctx = ctx;
    this.#list = h('ul', { class: 'quick-open-list', id: 'quick-open-list', role: 'listbox', 'aria-label': 'files' });
    this.#input = h('input', {
      class: 'quick-open-input',
      type: 'text',
      role: 'combobox',
      'aria-label': 'file name',
      'aria-autocomplete': 'list',
      'aria-expanded': 'false',
      'aria-controls': this.#list.id,
      placeholder: 'Go to file: type part of its path',
      autocomplete: 'off',
      spellcheck: 'false',
    });
    this.#message = h('div', { class: 'quick-open-message', role: 'status', 'aria-live': 'polite' });
    this.#dialog = h('dialog', { class: 'quick-open', role: 'dialog', 'aria-label': 'Go to file', 'aria-modal': 'true' }, this.#input, this.#message, this.#list);
    document.body.append(this.#dialog);

    this.#input.addEventListener('input', () => this.#typing.schedule());
    this.#input.addEventListener('keydown', (event) => this.#onKey(event));
    // The dialog's own Escape (a `cancel`): close our way, focus returned.
    this.#dialog.addEventListener('cancel', (event) => {
      event.preventDefault();
      this.close();
    });
    // A click on the backdrop lands on the dialog element itself (its content fills it).
    this.#dialog.addEventListener('click', (event) => {
      if (event.target === this.#dialog) this.close();
    });
    this.#list.addEventListener('mousedown', (event) => event.preventDefault()); // keep the caret in the input
    this.#list.addEventListener('click', (event) => {
      const option = (event.target as Element).closest<HTMLElement>('[role=option]');
      if (option) this.#choose(Number(option.dataset.index));
    });
  }

  open(): void {
    if (!this.#dialog.open) {
      this.#returnFocus = document.activeElement instanceof HTMLElement ? document.activeElement : null;
      this.#dialog.showModal();
      void this.#search(); // at once: the shallowest files (q="") or the last query's answer again
    }
    this.#input.focus();
    this.#input.select();
  }

  close(): void {
    this.#typing.cancel();
    this.#request?.abort();
    if (this.#dialog.open) this.#dialog.close();
    this.#input.setAttribute('aria-expanded', 'false');
    this.#returnFocus?.focus();
    this.#returnFocus = null;
  }

  /** Asks for the input's files; true once they are shown (false: a newer query took over, or it failed). */
  async #search(): Promise<boolean> {
    this.#typing.cancel();
    this.#request?.abort();
    const request = (this.#request = new AbortController());
    const typed = this.#input.value;
    // `@` is how ori's composer summons this very search: a leading one is the summons, not part of the path.
    const q = typed.startsWith('@') ? typed.slice(1) : typed;
    this.#list.setAttribute('aria-busy', 'true');
    let files: FoundFile[];
    try {
      const answer = await this.#ctx.client.call('GET /api/files/search', { query: { q, limit: String(LIMIT) }, signal: request.signal });
      files = answer.files;
    } catch (error) {
      if (isAbort(error) || request.signal.aborted) return false;
      this.#show([], typed);
      this.#message.textContent = `Could not search: ${messageOf(error)}`;
      this.#message.dataset.kind = 'error';
      return false;
    }
    if (request.signal.aborted) return false; // a newer query is under way
    this.#show(files, typed);
    return true;
  }

  #show(files: FoundFile[], typed: string): void {
    this.#files = files;
    this.#list.removeAttribute('aria-busy');
    replaceChildren(this.#list, ...files.map((file, index) => this.#option(file, index)));
    this.#list.dataset.query = typed; // which query this list answers (tests and people can tell)
    this.#input.setAttribute('aria-expanded', String(files.length > 0));
    this.#message.dataset.kind = 'info';
    this.#message.textContent = files.length === 0 ? 'No matching files' : '';
    this.#setActive(files.length > 0 ? 0 : -1);
  }

  #option(file: FoundFile, index: number): HTMLLIElement {
    const { folder } = nameAndFolder(file.relPath);
    return h(
      'li',
      { class: 'quick-open-option', role: 'option', id: `quick-open-option-${index}`, 'aria-selected': 'false', 'data-index': index, 'data-path': file.relPath, title: file.relPath },
      h('span', { class: 'quick-open-name' }, file.name),
      folder ? h('span', { class: 'quick-open-folder' }, folder) : null,
    );
  }

  #setActive(index: number): void {
    const options = this.#list.children;
    if (this.#active >= 0 && this.#active < options.length) options[this.#active]!.setAttribute('aria-selected', 'false');
    this.#active = index;
    if (index < 0) {
      this.#input.removeAttribute('aria-activedescendant');
      return;
    }
    const option = options[index] as HTMLElement;
    option.setAttribute('aria-selected', 'true');
    option.scrollIntoView({ block: 'nearest' });
    this.#input.setAttribute('aria-activedescendant', option.id);
  }

  #onKey(event: KeyboardEvent): void {
    const count = this.#files.length;
    switch (event.key) {
      case 'ArrowDown':
      case 'ArrowUp': {
        event.preventDefault();
        if (count === 0) return;
        const step = event.key === 'ArrowDown' ? 1 : -1;
        this.#setActive((this.#active + step + count) % count);
        return;
      }
      case 'PageDown':
      case 'PageUp': {
        event.preventDefault();
        if (count === 0) return;
        const step = event.key === 'PageDown' ? 10 : -10;
        this.#setActive(Math.min(count - 1, Math.max(0, this.#active + step)));
        return;
      }
      case 'Enter':
        event.preventDefault();
        // Typed faster than the debounce or the answer: answer this very text first, then open its best file.
        if (this.#list.dataset.query !== this.#input.value) {
          void this.#search().then((shown) => shown && this.#choose(this.#active));
          return;
        }
        this.#choose(this.#active);
        return;
      case 'Escape':
        event.preventDefault();
        this.close();
        return;
    }
  }

  #choose(index: number): void {
    const file = this.#files[index];
    if (!file) return;
    this.#returnFocus = null; // focus goes to what opens, not back
    this.close();
    this.#ctx.openFile(file.relPath).catch((error: unknown) => this.#ctx.status(messageOf(error), 'error'));
  }
}
